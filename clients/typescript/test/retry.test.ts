// Retries that are safe, against the real service behind a proxy that fails requests on purpose:
// one Idempotency-Key per logical call, sent again unchanged after a 503, a 429 (once its
// Retry-After has passed), a dropped connection or no answer; never a retry of another 4xx.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Client, createClient, StockadeError } from "@stockade/client";
import { FaultyProxy } from "./helpers/proxy.js";
import { type Stockade, startStockade } from "./helpers/stockade.js";

let server: Stockade;
let proxy: FaultyProxy;
let admin: Client; // straight to the server
let client: Client; // through the proxy

before(async () => {
	server = await startStockade();
	proxy = await new FaultyProxy(server.url).start();
	admin = createClient({ baseUrl: server.url, apiKey: server.adminKey });
	client = createClient({ baseUrl: proxy.url, apiKey: server.adminKey });
	await admin.putLocation({ path: { id: "ewr" }, body: { name: "Newark" } });
});
after(async () => {
	await proxy?.close();
	await server?.stop();
});

async function stock(sku: string, onHand: number) {
	await admin.setStock({ path: { sku, location: "ewr" }, body: { on_hand: onHand } });
}

/** The Idempotency-Key of each request the proxy saw for `method path`. */
function keys(method: string, path: string): unknown[] {
	return proxy.requests(method, path).map((s) => s.headers["idempotency-key"]);
}

test("503 twice, then the same key goes through once", async () => {
	await stock("s503", 10);
	proxy.plan("POST", "/v1/reservations", { kind: "refuse", status: 503 }, { kind: "refuse", status: 503 });
	const res = await client.request("reserve", { body: { lines: [{ sku: "s503", quantity: 2 }] } });
	assert.equal(res.attempts, 3);
	const sent = keys("POST", "/v1/reservations");
	assert.equal(sent.length, 3);
	assert.equal(new Set(sent).size, 1, `one key for the three attempts: ${sent}`);
	assert.equal(sent[0], res.idempotencyKey);
	assert.match(res.idempotencyKey ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
	const level = await admin.getStock({ path: { sku: "s503" } });
	assert.equal(level.totals.reserved, 2, "reserved once");
});

test("an answer lost after the server committed: the retry returns the same order", async () => {
	await stock("lost", 10);
	proxy.plan("POST", "/v1/orders", { kind: "lose-answer" });
	const res = await client.request("checkout", { body: { lines: [{ sku: "lost", quantity: 3 }] } });
	assert.equal(res.attempts, 2);
	assert.equal(res.replayed, true, "the second attempt was answered from the first's record");
	const [lostAttempt, retry] = proxy.requests("POST", "/v1/orders");
	assert.ok(lostAttempt?.answer, "the server answered the first attempt");
	const committed = JSON.parse(lostAttempt.answer) as { id: string };
	assert.equal(res.data.id, committed.id, "the same order came back");
	assert.equal(lostAttempt.headers["idempotency-key"], retry?.headers["idempotency-key"]);
	const level = await admin.getStock({ path: { sku: "lost" } });
	assert.equal(level.totals.committed, 3, "one order, not two");
	const orders = await admin.listOrders();
	assert.equal(orders.orders.filter((o) => o.lines.some((l) => l.sku === "lost")).length, 1);
});

test("the caller's own key is the one sent again", async () => {
	await stock("own", 10);
	proxy.plan("POST", "/v1/orders", { kind: "drop" });
	const res = await client.request("checkout", {
		body: { lines: [{ sku: "own", quantity: 1 }] },
		header: { "Idempotency-Key": "basket-own" },
	});
	assert.equal(res.attempts, 2);
	assert.deepEqual(keys("POST", "/v1/orders").slice(-2), ["basket-own", "basket-own"]);
});

test("429 is retried once its Retry-After has passed", async () => {
	await stock("s429", 10);
	proxy.plan("POST", "/v1/reservations", { kind: "refuse", status: 429, retryAfter: 1 });
	const before = proxy.requests("POST", "/v1/reservations").length;
	const res = await client.request("reserve", { body: { lines: [{ sku: "s429", quantity: 1 }] } });
	assert.equal(res.attempts, 2);
	const [refused, retry] = proxy.requests("POST", "/v1/reservations").slice(before);
	assert.ok(refused && retry);
	assert.ok(retry.at - refused.at >= 990, `retried ${Math.round(retry.at - refused.at)} ms after a Retry-After of 1 s`);
	assert.equal(refused.headers["idempotency-key"], retry.headers["idempotency-key"]);
});

test("the server's own 429 is waited out", async () => {
	// A key of a request every two seconds, in bursts of one: the second call in a row meets a 429.
	const key = await admin.createKey({ body: { name: "limited", role: "reader", rate_limit: 0.5 } });
	const limited = createClient({ baseUrl: server.url, apiKey: key.secret });
	const attempts: number[] = [];
	for (let i = 0; i < 20 && !attempts.some((n) => n > 1); i++) {
		attempts.push((await limited.request("getStock", { path: { sku: "s429" } })).attempts);
	}
	assert.ok(
		attempts.some((n) => n > 1),
		`some call met a 429 and went through after it: attempts ${attempts}`,
	);
});

test("no answer in time: the attempt is abandoned and sent again under its key", async () => {
	await stock("slow", 10);
	proxy.plan("POST", "/v1/reservations", { kind: "hang" });
	const before = proxy.requests("POST", "/v1/reservations").length;
	const res = await client.request("reserve", {
		body: { lines: [{ sku: "slow", quantity: 1 }] },
		timeoutMs: 1000,
		retries: 5,
	});
	// Two attempts, or more if the machine is so busy that the server's answer took longer too.
	assert.ok(res.attempts >= 2);
	const sent = proxy.requests("POST", "/v1/reservations").slice(before);
	assert.equal(sent[0]?.action, "hang");
	assert.equal(sent.length, res.attempts);
	assert.equal(new Set(sent.map((s) => s.headers["idempotency-key"])).size, 1);
	const level = await admin.getStock({ path: { sku: "slow" } });
	assert.equal(level.totals.reserved, 1, "reserved once");
});

test("a GET is retried after a dropped connection", async () => {
	proxy.plan("GET", "/v1/stock/s503", { kind: "drop" }, { kind: "refuse", status: 502 });
	const res = await client.request("getStock", { path: { sku: "s503" } });
	assert.equal(res.attempts, 3);
	assert.equal(res.data.sku, "s503");
});

test("a 4xx is never retried", async () => {
	await stock("scarce", 1);
	const before = proxy.requests("POST", "/v1/reservations").length;
	const err = await client.reserve({ body: { lines: [{ sku: "scarce", quantity: 2 }] } }).catch((e: unknown) => e);
	assert.ok(err instanceof StockadeError);
	assert.equal(err.code, "insufficient_stock");
	assert.equal(err.attempts, 1);
	assert.equal(proxy.requests("POST", "/v1/reservations").length, before + 1);
	assert.ok(err.idempotencyKey, "the error names the key the call went under");
});

test("503 until the retries run out: a StockadeError unavailable", async () => {
	const refuse = { kind: "refuse", status: 503 } as const;
	proxy.plan("POST", "/v1/reservations", refuse, refuse, refuse);
	const before = proxy.requests("POST", "/v1/reservations").length;
	const err = await client
		.reserve({ body: { lines: [{ sku: "s503", quantity: 1 }] }, retries: 2 })
		.catch((e: unknown) => e);
	assert.ok(err instanceof StockadeError, String(err));
	assert.equal(err.code, "unavailable");
	assert.equal(err.status, 503);
	assert.equal(err.attempts, 3);
	const sent = proxy.requests("POST", "/v1/reservations").slice(before);
	assert.equal(sent.length, 3);
	assert.equal(new Set(sent.map((s) => s.headers["idempotency-key"])).size, 1);
});

test("a write without an Idempotency-Key is not sent again after a 503", async () => {
	// POST /v1/keys takes no key (its answer holds a secret shown once): a 503 may have made
	// the key, so the call fails rather than make a second one.
	proxy.plan("POST", "/v1/keys", { kind: "refuse", status: 503 });
	const err = await client.createKey({ body: { name: "once", role: "reader" } }).catch((e: unknown) => e);
	assert.ok(err instanceof StockadeError);
	assert.equal(err.code, "unavailable");
	assert.equal(proxy.requests("POST", "/v1/keys").length, 1);
	assert.equal(proxy.requests("POST", "/v1/keys")[0]?.headers["idempotency-key"], undefined);

	// A 429, refused before the body was read, is safe to send again.
	proxy.plan("POST", "/v1/keys", { kind: "refuse", status: 429, retryAfter: 0 });
	const key = await client.request("createKey", { body: { name: "twice", role: "reader" } });
	assert.equal(key.attempts, 2);
});

test("an aborted call stops its retries", async () => {
	const refuse = { kind: "refuse", status: 503, retryAfter: 30 } as const;
	proxy.plan("GET", "/v1/stock/aborted", refuse, refuse);
	const ctl = new AbortController();
	const call = client.getStock({ path: { sku: "aborted" }, signal: ctl.signal });
	// Abort once the first attempt has been refused and the client waits out its Retry-After.
	while (proxy.requests("GET", "/v1/stock/aborted").length === 0) await new Promise((r) => setTimeout(r, 10));
	ctl.abort(new Error("the shopper left"));
	await assert.rejects(call, /the shopper left/);
	assert.equal(proxy.requests("GET", "/v1/stock/aborted").length, 1);
});
