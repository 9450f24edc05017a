import { routes } from "./routes.js";
import type { operations } from "./schema.js";
import { type WebhookSecret } from "./webhooks.js";
/** The operationId of an operation of the API, such as "reserve" or "getStock". */
export type OperationId = keyof operations;
type Routes = typeof routes;
type Op<K extends OperationId> = operations[K];
/** The operations whose answer is a stream of Server-Sent Events. */
export type StreamOperationId = {
    [K in OperationId]: Routes[K]["stream"] extends true ? K : never;
}[OperationId];
/** The operations answered once, with a JSON (or text) document. */
export type CallOperationId = Exclude<OperationId, StreamOperationId>;
type RequestBody<K extends OperationId> = NonNullable<Op<K>["requestBody"]>;
/** The JSON body of an operation, `never` if it takes none. */
export type OperationBody<K extends OperationId> = RequestBody<K> extends {
    content: {
        "application/json": infer B;
    };
} ? B : never;
type BodyArg<K extends OperationId> = [RequestBody<K>] extends [never] ? {
    body?: never;
} : undefined extends Op<K>["requestBody"] ? {
    body?: OperationBody<K>;
} : {
    body: OperationBody<K>;
};
type SignArg<K extends OperationId> = Routes[K]["auth"] extends "webhookSignature" ? {
    /** The secret(s) shared with the server: the request is signed with them
     * (Stockade-Signature) instead of carrying the API key. */
    webhookSecret: WebhookSecret | readonly WebhookSecret[];
} : {
    webhookSecret?: never;
};
/** Options of one call, beside its arguments. */
export interface CallOptions {
    /** Ends the call (and its retries) when aborted; the call rejects with the signal's reason. */
    signal?: AbortSignal;
    /** How many times to retry a call that may be retried: see {@link ClientOptions.retries}. */
    retries?: number;
    /** How long one attempt may wait for its answer: see {@link ClientOptions.timeoutMs}. */
    timeoutMs?: number;
}
/**
 * The arguments of an operation: `path`, `query` and `header` parameters as the document names
 * them, the JSON `body`, and {@link CallOptions}. `header` takes the `Idempotency-Key`, `If-Match`
 * or `Last-Event-ID` of the operations that accept them.
 */
export type OperationArgs<K extends OperationId> = Omit<Op<K>["parameters"], "cookie"> & BodyArg<K> & SignArg<K> & CallOptions;
type Empty = Record<never, never>;
type ArgsTuple<K extends OperationId> = Empty extends OperationArgs<K> ? [args?: OperationArgs<K>] : [args: OperationArgs<K>];
type Responses<K extends OperationId> = Op<K>["responses"];
/** The statuses a call resolves with: the successes, and 304 Not Modified (an If-None-Match that
 * matched), whose result is undefined. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 304;
type ContentOf<R> = R extends {
    content: infer C;
} ? C[keyof C] : undefined;
/** What an operation answers on success: its JSON document (or text, for the metrics; undefined
 * for a 304). */
export type OperationResult<K extends OperationId> = ContentOf<Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]>;
/** An event of the feed, as `GET /v1/events` lists it and the stream sends it. */
export type StockadeEvent = OperationResult<"listEvents">["events"][number];
/** A success, with what its answer said beside the document. */
export interface StockadeResponse<T> {
    data: T;
    status: number;
    headers: Headers;
    /** The answer was replayed for a repeated Idempotency-Key (Idempotent-Replayed: true). */
    replayed: boolean;
    /** The request's id (X-Request-Id), which the server's log lines carry. */
    requestId: string | undefined;
    /** The Idempotency-Key the call went under: the caller's, or one made for the call. */
    idempotencyKey: string | undefined;
    /** How many times the request was sent. */
    attempts: number;
}
/** Options of {@link createClient}. */
export interface ClientOptions {
    /** The server, such as "http://localhost:8080". */
    baseUrl: string;
    /** An API key (`stk_…`), sent as `Authorization: Bearer`. */
    apiKey?: string;
    /**
     * How many times a call is sent again after a 503, 502 or 504, a failed connection or no
     * answer within `timeoutMs`, when that is safe: a GET, or an operation that takes an
     * Idempotency-Key (the call's key, or one made for it, is sent again unchanged, so the server
     * does the work once and answers a retry with the first success). A 429 is retried after its
     * Retry-After whatever the operation (the server refuses it before reading the body). Other
     * refusals (4xx) are never retried. Waits between attempts grow from 200 ms to 5 s, with jitter,
     * or follow the answer's Retry-After (up to a minute). Default: 3. An event stream reconnects
     * without limit unless its call gives `retries`.
     */
    retries?: number;
    /** How long one attempt waits for its answer, in ms; a long poll's `wait` is added. Default: 30000. */
    timeoutMs?: number;
    /** Headers sent with every request. */
    headers?: Record<string, string>;
    /** The fetch to send requests with. Default: the global fetch. */
    fetch?: typeof fetch;
}
/**
 * A client of the stockade API: a method per operation, named by its operationId (`reserve`,
 * `confirmReservation`, `getStock`, …), and {@link Client.request} for the answer's details.
 * `streamEvents` returns an {@link EventStream}.
 */
export type Client = {
    readonly [K in CallOperationId]: (...args: ArgsTuple<K>) => Promise<OperationResult<K>>;
} & {
    readonly [K in StreamOperationId]: (...args: ArgsTuple<K>) => EventStream;
} & {
    /** Calls the operation and resolves with its document and the answer's details. */
    request<K extends CallOperationId>(operation: K, ...args: ArgsTuple<K>): Promise<StockadeResponse<OperationResult<K>>>;
};
/** Returns a client of the server at `options.baseUrl`. */
export declare function createClient(options: ClientOptions): Client;
/** The arguments of any operation, as the transport reads them. */
interface AnyArgs extends CallOptions {
    path?: Record<string, unknown>;
    query?: Record<string, unknown>;
    header?: Record<string, unknown>;
    body?: unknown;
    webhookSecret?: WebhookSecret | readonly WebhookSecret[];
}
type Route = Routes[OperationId];
/** @internal The requests of a client. */
export declare class Transport {
    private readonly base;
    private readonly apiKey;
    readonly retries: number;
    readonly timeoutMs: number;
    private readonly headers;
    readonly fetch: typeof fetch;
    constructor(options: ClientOptions);
    call(id: OperationId, args?: AnyArgs): Promise<StockadeResponse<unknown>>;
    url(route: Route, args: AnyArgs): string;
    requestHeaders(route: Route, args: AnyArgs): Headers;
}
/**
 * The events of the feed as Server-Sent Events, as an async iterable: `for await (const event of
 * stream)`. When the connection drops, or the server ends the stream (a restart, a failure it
 * reports as an `error` event), it reconnects with `Last-Event-ID`, the cursor of the last event it
 * gave, so that no event is missed or given twice; waits between attempts grow as a call's retries
 * do. A refusal (a 4xx but 429: a wrong key, a bad filter) rejects with a {@link StockadeError}.
 *
 * Leaving the loop (break, return, an exception) closes the connection. Iterating again resumes
 * after {@link EventStream.lastEventId}; so does a new stream given it as its `Last-Event-ID`
 * header, in this process or another.
 */
export declare class EventStream implements AsyncIterable<StockadeEvent> {
    #private;
    /** The cursor of the last event given (or the Last-Event-ID the stream started from). */
    lastEventId: string | undefined;
    /** @internal Made by a client's stream operation. */
    constructor(transport: Transport, id: OperationId, args?: AnyArgs);
    [Symbol.asyncIterator](): AsyncIterator<StockadeEvent, void, undefined>;
}
export {};
