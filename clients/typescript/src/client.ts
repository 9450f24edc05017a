import { mediaType, problemError, responseError, retryAfterSeconds, StockadeError } from "./errors.js";
import { routes } from "./routes.js";
import type { operations } from "./schema.js";
import { readSSE } from "./sse.js";
import { signatureHeader, signWebhook, type WebhookSecret } from "./webhooks.js";

// The types of a call, read off the generated `operations` only (never a component's name, which
// the document may change): an operation's arguments are its parameters as the document groups
// them (path, query, header) and its JSON body; its result is its success answer's content.

/** The operationId of an operation of the API, such as "reserve" or "getStock". */
export type OperationId = keyof operations;
type Routes = typeof routes;
type Op<K extends OperationId> = operations[K];

/** The operations whose answer is a stream of Server-Sent Events. */
export type StreamOperationId = { [K in OperationId]: Routes[K]["stream"] extends true ? K : never }[OperationId];
/** The operations answered once, with a JSON (or text) document. */
export type CallOperationId = Exclude<OperationId, StreamOperationId>;

type RequestBody<K extends OperationId> = NonNullable<Op<K>["requestBody"]>;
/** The JSON body of an operation, `never` if it takes none. */
export type OperationBody<K extends OperationId> =
	RequestBody<K> extends {
		content: { "application/json": infer B };
	}
		? B
		: never;
type BodyArg<K extends OperationId> = [RequestBody<K>] extends [never]
	? { body?: never }
	: undefined extends Op<K>["requestBody"]
		? { body?: OperationBody<K> }
		: { body: OperationBody<K> };
type SignArg<K extends OperationId> = Routes[K]["auth"] extends "webhookSignature"
	? {
			/** The secret(s) shared with the server: the request is signed with them
			 * (Stockade-Signature) instead of carrying the API key. */
			webhookSecret: WebhookSecret | readonly WebhookSecret[];
		}
	: { webhookSecret?: never };

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
export type OperationArgs<K extends OperationId> = Omit<Op<K>["parameters"], "cookie"> &
	BodyArg<K> &
	SignArg<K> &
	CallOptions;

type Empty = Record<never, never>;
type ArgsTuple<K extends OperationId> =
	Empty extends OperationArgs<K> ? [args?: OperationArgs<K>] : [args: OperationArgs<K>];

type Responses<K extends OperationId> = Op<K>["responses"];
/** The statuses a call resolves with: the successes, and 304 Not Modified (an If-None-Match that
 * matched), whose result is undefined. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 304;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;
/** What an operation answers on success: its JSON document (or text, for the metrics; undefined
 * for a 304). */
export type OperationResult<K extends OperationId> = ContentOf<
	Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]
>;

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
	request<K extends CallOperationId>(
		operation: K,
		...args: ArgsTuple<K>
	): Promise<StockadeResponse<OperationResult<K>>>;
};

/** Returns a client of the server at `options.baseUrl`. */
export function createClient(options: ClientOptions): Client {
	const transport = new Transport(options);
	const client: Record<string, unknown> = {
		request: (id: CallOperationId, args?: AnyArgs) => transport.call(id, args),
	};
	for (const id of Object.keys(routes) as OperationId[]) {
		client[id] = routes[id].stream
			? (args?: AnyArgs) => new EventStream(transport, id, args)
			: async (args?: AnyArgs) => (await transport.call(id, args)).data;
	}
	return client as Client;
}

/** The arguments of any operation, as the transport reads them. */
interface AnyArgs extends CallOptions {
	path?: Record<string, unknown>;
	query?: Record<string, unknown>;
	header?: Record<string, unknown>;
	body?: unknown;
	webhookSecret?: WebhookSecret | readonly WebhookSecret[];
}

type Route = Routes[OperationId];

const defaultRetries = 3;
const defaultTimeoutMs = 30_000;
const minBackoffMs = 200;
const maxBackoffMs = 5_000;
/** A Retry-After longer than this ends the retries: the error says when to try again. */
const maxRetryAfterMs = 60_000;

/** @internal The requests of a client. */
export class Transport {
	private readonly base: string;
	private readonly apiKey: string | undefined;
	readonly retries: number;
	readonly timeoutMs: number;
	private readonly headers: Record<string, string>;
	readonly fetch: typeof fetch;

	constructor(options: ClientOptions) {
		this.base = options.baseUrl.replace(/\/+$/, "");
		this.apiKey = options.apiKey;
		this.retries = options.retries ?? defaultRetries;
		this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
		this.headers = options.headers ?? {};
		// Called unbound, a browser's fetch throws "Illegal invocation".
		const f = options.fetch ?? globalThis.fetch;
		this.fetch = (input, init) => f(input, init);
	}

	async call(id: OperationId, args: AnyArgs = {}): Promise<StockadeResponse<unknown>> {
		const route: Route = routes[id];
		const what = `${route.method} ${route.path}`;
		const url = this.url(route, args);
		const body = args.body === undefined ? undefined : JSON.stringify(args.body);
		const headers = this.requestHeaders(route, args);
		if (body !== undefined) headers.set("Content-Type", "application/json");
		let key = headers.get("Idempotency-Key") ?? undefined;
		if (route.idempotencyKey && key === undefined) {
			key = newIdempotencyKey();
			headers.set("Idempotency-Key", key);
		}
		// Sending again is safe for a read, and for a write under a key: the server stores the
		// first success with its effect and answers a repeat with it.
		const resendable = route.method === "GET" || key !== undefined;
		const retries = args.retries ?? this.retries;
		const timeoutMs = (args.timeoutMs ?? this.timeoutMs) + waitMs(args.query?.wait);
		for (let attempt = 1; ; attempt++) {
			if (route.auth === "webhookSignature") {
				if (args.webhookSecret === undefined) throw new TypeError(`stockade: ${what}: no webhookSecret to sign with`);
				headers.set(signatureHeader, await signWebhook(body ?? "", args.webhookSecret));
			}
			const more = attempt <= retries;
			let res: Response;
			let text: string;
			const limit = deadline(args.signal, timeoutMs);
			try {
				res = await this.fetch(url, { method: route.method, headers, body: body ?? null, signal: limit.signal });
				text = await res.text();
			} catch (err) {
				if (args.signal?.aborted) throw args.signal.reason;
				if (resendable && more) {
					await sleep(backoff(attempt), args.signal);
					continue;
				}
				const tries = attempt === 1 ? "" : ` (${attempt} attempts)`;
				throw new Error(`stockade: ${what}: ${(err as Error).message}${tries}`, { cause: err });
			} finally {
				limit.release();
			}
			if (res.ok || res.status === 304) {
				return {
					data: decode(res, text),
					status: res.status,
					headers: res.headers,
					replayed: res.headers.get("Idempotent-Replayed") === "true",
					requestId: res.headers.get("X-Request-Id") ?? undefined,
					idempotencyKey: key,
					attempts: attempt,
				};
			}
			const err = responseError(what, res, text, { idempotencyKey: key, attempts: attempt });
			const retryable = res.status === 429 || (resendable && transientStatus(res.status));
			if (retryable && more) {
				const after = retryAfterSeconds(res);
				const delay = after === undefined ? backoff(attempt) : after * 1000;
				if (delay <= maxRetryAfterMs) {
					await sleep(delay, args.signal);
					continue;
				}
			}
			throw err;
		}
	}

	url(route: Route, args: AnyArgs): string {
		const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
			const v = args.path?.[name];
			if (v === undefined || v === null || v === "") {
				throw new TypeError(`stockade: ${route.method} ${route.path}: path parameter ${name} is missing`);
			}
			return encodeURIComponent(String(v));
		});
		const q = new URLSearchParams();
		for (const [name, v] of Object.entries(args.query ?? {})) {
			if (v === undefined || v === null) continue;
			if (Array.isArray(v)) {
				for (const item of v) q.append(name, String(item));
			} else if (typeof v === "object") {
				// deepObject, the style of the lists' metadata filter: metadata[cart]=c_42.
				for (const [k, item] of Object.entries(v)) {
					if (item !== undefined && item !== null) q.append(`${name}[${k}]`, String(item));
				}
			} else {
				q.append(name, String(v));
			}
		}
		const qs = q.toString();
		return this.base + path + (qs === "" ? "" : `?${qs}`);
	}

	requestHeaders(route: Route, args: AnyArgs): Headers {
		const h = new Headers(this.headers);
		h.set("Accept", route.stream ? "text/event-stream" : "application/json, application/problem+json");
		if (this.apiKey !== undefined && route.auth !== "webhookSignature") {
			h.set("Authorization", `Bearer ${this.apiKey}`);
		}
		for (const [name, v] of Object.entries(args.header ?? {})) {
			if (v !== undefined && v !== null) h.set(name, String(v));
		}
		return h;
	}
}

/** 502, 503 and 504: the server, or a proxy before it, could not answer now; the request's
 * outcome may be unknown, which a retry under the same key resolves. */
function transientStatus(status: number): boolean {
	return status === 502 || status === 503 || status === 504;
}

function decode(res: Response, text: string): unknown {
	if (text === "" || res.status === 304) return undefined;
	const type = mediaType(res);
	return type === "application/json" || type.endsWith("+json") ? JSON.parse(text) : text;
}

/** The wait before attempt+1: doubling from minBackoffMs to maxBackoffMs, drawn between half of
 * it and all of it so that clients refused together do not come back together. */
function backoff(attempt: number): number {
	const ceiling = Math.min(maxBackoffMs, minBackoffMs * 2 ** (attempt - 1));
	return ceiling / 2 + (Math.random() * ceiling) / 2;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(signal.reason);
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal?.reason);
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

/** A new Idempotency-Key: a random (version 4) UUID. crypto.getRandomValues, unlike
 * crypto.randomUUID, is there in pages that are not served over HTTPS too. */
function newIdempotencyKey(): string {
	const b = crypto.getRandomValues(new Uint8Array(16));
	b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
	b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
	const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The milliseconds of a long poll's `wait` (a Go duration such as "30s"), 0 if there is none. */
function waitMs(wait: unknown): number {
	if (typeof wait !== "string") return 0;
	let ms = 0;
	for (const m of wait.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
		ms += Number(m[1]) * (durationUnits[m[2] ?? ""] ?? 0);
	}
	return ms;
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
export class EventStream implements AsyncIterable<StockadeEvent> {
	/** The cursor of the last event given (or the Last-Event-ID the stream started from). */
	lastEventId: string | undefined;

	readonly #transport: Transport;
	readonly #route: Route;
	readonly #args: AnyArgs;

	/** @internal Made by a client's stream operation. */
	constructor(transport: Transport, id: OperationId, args: AnyArgs = {}) {
		this.#transport = transport;
		this.#route = routes[id];
		this.#args = args;
		const start = args.header?.["Last-Event-ID"];
		this.lastEventId = typeof start === "string" && start !== "" ? start : undefined;
	}

	async *[Symbol.asyncIterator](): AsyncIterator<StockadeEvent, void, undefined> {
		const route = this.#route;
		const what = `${route.method} ${route.path}`;
		const signal = this.#args.signal;
		signal?.throwIfAborted();
		const ctl = new AbortController();
		const onAbort = () => ctl.abort(signal?.reason);
		signal?.addEventListener("abort", onAbort, { once: true });
		const retries = this.#args.retries ?? Number.POSITIVE_INFINITY;
		const timeoutMs = this.#args.timeoutMs ?? this.#transport.timeoutMs;
		const aborted = () => signal?.reason ?? ctl.signal.reason;
		let failures = 0; // attempts since the last event
		let retryMs: number | undefined; // the stream's retry: field
		try {
			for (;;) {
				// After the first event, the stream resumes from the last one: Last-Event-ID, and
				// not the query's after, which the server refuses beside it.
				const args: AnyArgs = { ...this.#args };
				if (this.lastEventId !== undefined) {
					const { after: _, ...query } = args.query ?? {};
					args.query = query;
					args.header = { ...args.header, "Last-Event-ID": this.lastEventId };
				}
				let wait: number | undefined;
				let cause: unknown;
				let res: Response | undefined;
				// The time limit is on the answer's headers; the stream then runs until it ends.
				const limit = deadline(ctl.signal, timeoutMs);
				try {
					res = await this.#transport.fetch(this.#transport.url(route, args), {
						method: route.method,
						headers: this.#transport.requestHeaders(route, args),
						signal: limit.signal,
					});
				} catch (err) {
					if (ctl.signal.aborted) throw aborted();
					cause = err;
				} finally {
					limit.stopTimer();
				}
				if (res !== undefined && !res.ok) {
					const err = responseError(what, res, await res.text().catch(() => ""), { attempts: failures + 1 });
					if (res.status !== 429 && !(res.status >= 500)) throw err;
					const after = retryAfterSeconds(res);
					wait = after === undefined ? undefined : after * 1000;
					cause = err;
				} else if (res?.body) {
					try {
						for await (const msg of readSSE(res.body)) {
							if (msg.retry !== undefined) retryMs = msg.retry;
							if (msg.event === "error") {
								// A failure after the stream began, as a problem document; the
								// server ends the stream after it.
								const err = streamError(what, msg.data);
								if (err instanceof StockadeError && err.status !== 429 && err.status < 500) throw err;
								cause = err;
								continue;
							}
							const event = JSON.parse(msg.data) as StockadeEvent;
							this.lastEventId = msg.id ?? event.cursor;
							failures = 0;
							yield event;
						}
					} catch (err) {
						if (ctl.signal.aborted) throw aborted();
						if (err instanceof StockadeError) throw err;
						cause = err; // the connection dropped: resume
					}
				}
				limit.release(); // this connection is over
				failures++;
				if (failures > retries) {
					throw cause instanceof Error
						? cause
						: new Error(`stockade: ${what}: the stream ended ${failures} times in a row`, { cause });
				}
				await sleep(wait ?? retryMs ?? backoff(failures), ctl.signal).catch(() => {
					throw aborted();
				});
			}
		} finally {
			signal?.removeEventListener("abort", onAbort);
			ctl.abort();
		}
	}
}

/** The error an `error` event of the stream reports: its data is a problem document. */
function streamError(what: string, data: string): StockadeError | Error {
	return problemError(data, {}) ?? new Error(`stockade: ${what}: the stream failed: ${JSON.stringify(data)}`);
}

/**
 * A signal that aborts when `parent` does or `ms` pass (with a TimeoutError). stopTimer ends the
 * time limit; release also stops following the parent, once the request is done with.
 */
function deadline(
	parent: AbortSignal | undefined,
	ms: number,
): { signal: AbortSignal; stopTimer(): void; release(): void } {
	const ctl = new AbortController();
	const onAbort = () => ctl.abort(parent?.reason);
	if (parent?.aborted) onAbort();
	else parent?.addEventListener("abort", onAbort, { once: true });
	const timer = setTimeout(() => ctl.abort(new DOMException(`no answer within ${ms} ms`, "TimeoutError")), ms);
	return {
		signal: ctl.signal,
		stopTimer: () => clearTimeout(timer),
		release: () => {
			clearTimeout(timer);
			parent?.removeEventListener("abort", onAbort);
		},
	};
}
