import type { operations } from "./schema.js";

type ProblemOf<R> = R extends { content: { "application/problem+json": infer P } } ? P : never;

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
export class StockadeError extends Error {
	override readonly name = "StockadeError";
	readonly code: ProblemCode;
	readonly status: number;
	readonly detail: string;
	readonly title: string;
	readonly type: string;
	readonly requestId: string | undefined;
	readonly retryAfter: number | undefined;
	readonly idempotencyKey: string | undefined;
	readonly attempts: number;

	constructor(
		problem: { code: ProblemCode; status: number; detail: string; title?: string; type?: string },
		init: StockadeErrorInit = {},
	) {
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
export function responseError(
	what: string,
	res: Response,
	body: string,
	init: StockadeErrorInit,
): StockadeError | Error {
	const full = { ...init, requestId: res.headers.get("X-Request-Id") ?? undefined, retryAfter: retryAfterSeconds(res) };
	const problem = mediaType(res) === "application/problem+json" ? problemError(body, full, res.status) : undefined;
	if (problem !== undefined) return problem;
	const shown = body.length > maxShown ? `${body.slice(0, maxShown)}…` : body;
	return new Error(`stockade: ${what}: ${res.status} ${res.statusText}: ${JSON.stringify(shown)}`);
}

/** The StockadeError of a problem document, or undefined if body is not one (with a code). */
export function problemError(body: string, init: StockadeErrorInit, status?: number): StockadeError | undefined {
	let p: { code?: unknown; status?: unknown; detail?: unknown; title?: unknown; type?: unknown };
	try {
		p = JSON.parse(body);
	} catch {
		return undefined;
	}
	if (typeof p !== "object" || p === null || typeof p.code !== "string" || p.code === "") return undefined;
	return new StockadeError(
		{
			code: p.code as ProblemCode,
			status: typeof p.status === "number" ? p.status : (status ?? 500),
			detail: typeof p.detail === "string" ? p.detail : "",
			...(typeof p.title === "string" ? { title: p.title } : {}),
			...(typeof p.type === "string" ? { type: p.type } : {}),
		},
		init,
	);
}

/** The media type of an answer, lowercase and without parameters. */
export function mediaType(res: Response): string {
	return (res.headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Retry-After in seconds (a number of seconds, or an HTTP date), if the answer has one. */
export function retryAfterSeconds(res: Response): number | undefined {
	const v = res.headers.get("Retry-After");
	if (v === null || v.trim() === "") return undefined;
	if (/^\d+$/.test(v.trim())) return Number(v.trim());
	const at = Date.parse(v);
	return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
