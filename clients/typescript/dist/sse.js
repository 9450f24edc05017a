// A reader of Server-Sent Events (the WHATWG "event stream" format) over a fetch body: what
// EventSource does, without its limits (it cannot send an Authorization header) and with the
// stream's end and failures left to the caller, which reconnects.
/**
 * The events of an event stream, in order, until it ends. Comments (keep-alives) and events without
 * data are skipped, as EventSource skips them; an event cut off by the end of the stream is dropped.
 * Leaving the loop early cancels the body.
 */
export async function* readSSE(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let id;
    let retry;
    let event = "";
    let data = [];
    try {
        for (;;) {
            const { done, value } = await reader.read();
            buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
            for (;;) {
                const end = lineEnd(buffer, done);
                if (end === undefined)
                    break;
                const line = buffer.slice(0, end.at);
                buffer = buffer.slice(end.next);
                if (line === "") {
                    if (data.length > 0)
                        yield { id, event: event || "message", data: data.join("\n"), retry };
                    event = "";
                    data = [];
                    continue;
                }
                if (line.startsWith(":"))
                    continue;
                const colon = line.indexOf(":");
                const field = colon < 0 ? line : line.slice(0, colon);
                let value = colon < 0 ? "" : line.slice(colon + 1);
                if (value.startsWith(" "))
                    value = value.slice(1);
                switch (field) {
                    case "event":
                        event = value;
                        break;
                    case "data":
                        data.push(value);
                        break;
                    case "id":
                        if (!value.includes("\0"))
                            id = value;
                        break;
                    case "retry":
                        if (/^\d+$/.test(value))
                            retry = Number(value);
                        break;
                }
            }
            if (done)
                return;
        }
    }
    finally {
        await reader.cancel().catch(() => { });
    }
}
/** Where the first line of buffer ends (CRLF, LF or CR) and the next begins, if it is whole. */
function lineEnd(buffer, done) {
    for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c === "\n")
            return { at: i, next: i + 1 };
        if (c === "\r") {
            if (i + 1 < buffer.length)
                return { at: i, next: buffer[i + 1] === "\n" ? i + 2 : i + 1 };
            // A CR last in the buffer may be the first half of a CRLF: wait for the next chunk.
            return done ? { at: i, next: i + 1 } : undefined;
        }
    }
    return undefined;
}
