import type { operations } from "./schema.js";
type ProblemOf<R> = R extends {
    content: {
        "application/problem+json": infer P;
    };
} ? P : never;
/** An RFC 9457 problem document, as any operation of the API answers a refusal. */
export type Problem = {
    [K in keyof operations]: ProblemOf<operations[K]["responses"][keyof operations[K]["responses"]]>;
}[keyof operations];
/** The stable code of a refusal: `insufficient_stock`, `not_found`, `rate_limited`, … */
export type ProblemCode = Problem["code"];
/** What the client knows of the request a refusal answered. */
export interface StockadeErrorInit {
    /** The request's id, from the answer's X-Request-Id: the server's log lines about it carry it. */
    requestId?: string | undefined;
    /** Seconds to wait before trying again, from the answer's Retry-After (429, 503). */
    retryAfter?: number | undefined;
    /** The Idempotency-Key the request went under, if it had one. */
    idempotencyKey?: string | undefined;
    /** How many times the request was sent: more than 1 when it was retried. */
    attempts?: number | undefined;
}
/**
 * A refusal from the server: its problem document's `code` (stable, one of {@link ProblemCode}),
 * HTTP `status` and `detail` (a sentence for people). A refusal (4xx) changed nothing.
 *
 * The code is typed as the document lists the codes; a newer server may send one this version of
 * the package does not know.
 */
export declare class StockadeError extends Error {
    readonly name = "StockadeError";
    readonly code: ProblemCode;
    readonly status: number;
    readonly detail: string;
    readonly title: string;
    readonly type: string;
    readonly requestId: string | undefined;
    readonly retryAfter: number | undefined;
    readonly idempotencyKey: string | undefined;
    readonly attempts: number;
    constructor(problem: {
        code: ProblemCode;
        status: number;
        detail: string;
        title?: string;
        type?: string;
    }, init?: StockadeErrorInit);
}
/**
 * The error of an answer that is not a success: a {@link StockadeError} when it is a problem
 * document with a code, else an Error that describes the answer (a proxy's page, say).
 */
export declare function responseError(what: string, res: Response, body: string, init: StockadeErrorInit): StockadeError | Error;
/** The StockadeError of a problem document, or undefined if body is not one (with a code). */
export declare function problemError(body: string, init: StockadeErrorInit, status?: number): StockadeError | undefined;
/** The media type of an answer, lowercase and without parameters. */
export declare function mediaType(res: Response): string;
/** Retry-After in seconds (a number of seconds, or an HTTP date), if the answer has one. */
export declare function retryAfterSeconds(res: Response): number | undefined;
export {};
