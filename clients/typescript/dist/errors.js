/**
 * A refusal from the server: its problem document's `code` (stable, one of {@link ProblemCode}),
 * HTTP `status` and `detail` (a sentence for people). A refusal (4xx) changed nothing.
 *
 * The code is typed as the document lists the codes; a newer server may send one this version of
 * the package does not know.
 */
export class StockadeError extends Error {
    name = "StockadeError";
    code;
    status;
    detail;
    title;
    type;
    requestId;
    retryAfter;
    idempotencyKey;
    attempts;
    constructor(problem, init = {}) {
        super(`${problem.code}: ${problem.detail}`);
        this.code = problem.code;
        this.status = problem.status;
        this.detail = problem.detail;
        this.title = problem.title ?? "";
        this.type = problem.type ?? `urn:stockade:problem:${problem.code}`;
        this.requestId = init.requestId;
        this.retryAfter = init.retryAfter;
        this.idempotencyKey = init.idempotencyKey;
        this.attempts = init.attempts ?? 1;
    }
}
/** The most of an unexpected answer's body an error message shows. */
const maxShown = 200;
/**
 * The error of an answer that is not a success: a {@link StockadeError} when it is a problem
 * document with a code, else an Error that describes the answer (a proxy's page, say).
 */
export function responseError(what, res, body, init) {
    const full = { ...init, requestId: res.headers.get("X-Request-Id") ?? undefined, retryAfter: retryAfterSeconds(res) };
    const problem = mediaType(res) === "application/problem+json" ? problemError(body, full, res.status) : undefined;
    if (problem !== undefined)
        return problem;
    const shown = body.length > maxShown ? `${body.slice(0, maxShown)}…` : body;
    return new Error(`stockade: ${what}: ${res.status} ${res.statusText}: ${JSON.stringify(shown)}`);
}
/** The StockadeError of a problem document, or undefined if body is not one (with a code). */
export function problemError(body, init, status) {
    let p;
    try {
        p = JSON.parse(body);
    }
    catch {
        return undefined;
    }
    if (typeof p !== "object" || p === null || typeof p.code !== "string" || p.code === "")
        return undefined;
    return new StockadeError({
        code: p.code,
        status: typeof p.status === "number" ? p.status : (status ?? 500),
        detail: typeof p.detail === "string" ? p.detail : "",
        ...(typeof p.title === "string" ? { title: p.title } : {}),
        ...(typeof p.type === "string" ? { type: p.type } : {}),
    }, init);
}
/** The media type of an answer, lowercase and without parameters. */
export function mediaType(res) {
    return (res.headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}
/** Retry-After in seconds (a number of seconds, or an HTTP date), if the answer has one. */
export function retryAfterSeconds(res) {
    const v = res.headers.get("Retry-After");
    if (v === null || v.trim() === "")
        return undefined;
    if (/^\d+$/.test(v.trim()))
        return Number(v.trim());
    const at = Date.parse(v);
    return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
