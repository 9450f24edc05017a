// A loopback HTTP proxy in front of the real server that fails requests on purpose, as a load
// balancer, a flaky network or an overloaded server would: it answers some requests itself (503,
// 429), cuts the connection before or after forwarding them, holds them without an answer, or cuts
// event streams, and records every request it saw.

import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the proxy does with one request. */
export type Action =
	/** Forward it and pass the answer back. */
	| { kind: "forward" }
	/** Answer it with a problem document of this status, without forwarding it. */
	| { kind: "refuse"; status: 429 | 502 | 503; retryAfter?: number }
	/** Cut the connection without forwarding it. */
	| { kind: "drop" }
	/** Forward it, let the server do it, then cut the connection before the answer: the outcome
	 * is unknown to the client, though the server committed it. */
	| { kind: "lose-answer" }
	/** Never answer (until the proxy closes). */
	| { kind: "hang" };

/** A request the proxy saw. */
export interface Seen {
	method: string;
	path: string;
	headers: IncomingMessage["headers"];
	at: number;
	action: Action["kind"];
	/** The server's answer's status, once its headers came back through the proxy. */
	status?: number;
	/** The server's answer's body, for forwarded requests whose answer is not a stream. */
	answer?: string;
}

const codes = { 429: "rate_limited", 502: "unavailable", 503: "unavailable" } as const;

export class FaultyProxy {
	readonly seen: Seen[] = [];
	url = "";
	readonly #upstream: URL;
	readonly #plan = new Map<string, Action[]>();
	readonly #streams = new Set<Socket>();
	readonly #server = createServer((req, res) => this.#handle(req, res));

	constructor(upstream: string) {
		this.#upstream = new URL(upstream);
	}

	async start(): Promise<this> {
		await new Promise<void>((done) => this.#server.listen(0, "127.0.0.1", done));
		this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
		return this;
	}

	/** The next requests for `method path` (path without the query) meet these actions, in turn;
	 * after them, requests are forwarded. */
	plan(method: string, path: string, ...actions: Action[]): void {
		this.#plan.set(`${method} ${path}`, actions);
	}

	/** The requests seen for `method path`. */
	requests(method: string, path: string): Seen[] {
		return this.seen.filter((s) => s.method === method && s.path === path);
	}

	/** Cuts every event stream being forwarded, as a dropped connection would. */
	cutStreams(): void {
		for (const socket of this.#streams) socket.destroy();
		this.#streams.clear();
	}

	async close(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise<void>((done) => this.#server.close(() => done()));
	}

	#handle(req: IncomingMessage, res: ServerResponse): void {
		const path = (req.url ?? "/").split("?")[0] ?? "/";
		const action = this.#plan.get(`${req.method} ${path}`)?.shift() ?? { kind: "forward" };
		const seen: Seen = {
			method: req.method ?? "",
			path,
			headers: req.headers,
			at: performance.now(),
			action: action.kind,
		};
		this.seen.push(seen);
		switch (action.kind) {
			case "refuse": {
				req.resume();
				const code = codes[action.status];
				const headers: Record<string, string> = { "Content-Type": "application/problem+json" };
				if (action.retryAfter !== undefined) headers["Retry-After"] = String(action.retryAfter);
				res.writeHead(action.status, headers);
				res.end(
					JSON.stringify({
						type: `urn:stockade:problem:${code}`,
						title: "refused by the test's proxy",
						status: action.status,
						code,
						detail: `the test's proxy answered ${action.status}`,
					}),
				);
				return;
			}
			case "drop":
				req.socket.destroy();
				return;
			case "hang":
				req.resume();
				return;
			case "forward":
			case "lose-answer":
				this.#forward(req, res, seen, action.kind === "lose-answer");
		}
	}

	#forward(req: IncomingMessage, res: ServerResponse, seen: Seen, loseAnswer: boolean): void {
		const up = request(
			new URL(req.url ?? "/", this.#upstream),
			{ method: req.method, headers: { ...req.headers, host: this.#upstream.host } },
			(answer) => {
				seen.status = answer.statusCode;
				const stream = (answer.headers["content-type"] ?? "").startsWith("text/event-stream");
				if (stream && !loseAnswer) {
					this.#streams.add(req.socket);
					req.socket.once("close", () => this.#streams.delete(req.socket));
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					res.flushHeaders();
					answer.pipe(res);
					return;
				}
				const chunks: Buffer[] = [];
				answer.on("data", (c: Buffer) => chunks.push(c));
				answer.on("end", () => {
					const body = Buffer.concat(chunks);
					seen.answer = body.toString("utf8");
					if (loseAnswer) {
						req.socket.destroy();
						return;
					}
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					res.end(body);
				});
			},
		);
		up.on("error", () => req.socket.destroy());
		req.pipe(up);
	}
}
