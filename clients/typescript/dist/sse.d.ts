/** One event of a stream. */
export interface SSEMessage {
    /** The stream's last event id when the event was dispatched (the `id:` field, which persists). */
    id: string | undefined;
    /** The `event:` field; "message" when the event has none. */
    event: string;
    /** The `data:` lines, joined with "\n". */
    data: string;
    /** The `retry:` field, the reconnection delay in milliseconds, if one came before. */
    retry: number | undefined;
}
/**
 * The events of an event stream, in order, until it ends. Comments (keep-alives) and events without
 * data are skipped, as EventSource skips them; an event cut off by the end of the stream is dropped.
 * Leaving the loop early cancels the body.
 */
export declare function readSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEMessage, void, undefined>;
