// The event stream: an async iterator over Server-Sent Events that resumes with Last-Event-ID,
// against the real service: left and resumed, cut by the network and resumed, nothing lost or
// given twice.

import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { type Client, createClient, StockadeError, type StockadeEvent } from "@stockade/client";
import { FaultyProxy } from "./helpers/proxy.js";
import { type Stockade, startStockade, waitFor } from "./helpers/stockade.js";

let server: Stockade;
let proxy: FaultyProxy;
let admin: Client;

before(async () => {
	server = await startStockade();
	proxy = await new FaultyProxy(server.url).start();
	admin = createClient({ baseUrl: server.url, apiKey: server.adminKey });
	await admin.putLocation({ path: { id: "ewr" }, body: { name: "Newark" } });
	await admin.setStock({ path: { sku: "ev", location: "ewr" }, body: { on_hand: 1000 } });
});
after(async () => {
	await proxy?.close();
	await server?.stop();
});

async function adjust(n: number) {
	for (let i = 0; i < n; i++) {
		await admin.adjustStock({ path: { sku: "ev", location: "ewr" }, body: { delta: 1, reason: `count ${i}` } });
	}
}

/** The ids of the events of `type` that the feed holds, as GET /v1/events lists them. */
async function feed(type: string): Promise<string[]> {
	const page = await admin.listEvents({ query: { type } });
	return page.events.map((e) => e.id);
}

test("leaving the loop and iterating again resumes after the last event", async () => {
	const type = "stock.adjusted";
	await adjust(3);
	const stream = admin.streamEvents({ query: { type } });
	const got: StockadeEvent[] = [];
	for await (const event of stream) {
		got.push(event);
		if (got.length === 2) break; // closes the connection
	}
	assert.equal(stream.lastEventId, got[1]?.cursor);
	await adjust(3);
	for await (const event of stream) {
		got.push(event);
		if (got.length === 6) break;
	}
	assert.deepEqual(
		got.map((e) => e.id),
		await feed(type),
		"every event once, in order",
	);
	assert.ok(got.every((e) => e.type === type && e.aggregate === "level" && e.aggregate_id === "ev@ewr"));

	// Another process, given the cursor of the third event, reads from the fourth.
	const later = admin.streamEvents({ query: { type }, header: { "Last-Event-ID": got[2]?.cursor ?? "" } });
	const rest: string[] = [];
	for await (const event of later) {
		rest.push(event.id);
		if (rest.length === 3) break;
	}
	assert.deepEqual(
		rest,
		got.slice(3).map((e) => e.id),
	);
});

test("a dropped connection is resumed with Last-Event-ID", async () => {
	const type = "reservation.held";
	const reserve = () => admin.reserve({ body: { lines: [{ sku: "ev", quantity: 1 }] } });
	await reserve();
	await reserve();
	const client = createClient({ baseUrl: proxy.url, apiKey: server.adminKey });
	const got: StockadeEvent[] = [];
	for await (const event of client.streamEvents({ query: { type } })) {
		got.push(event);
		if (got.length === 2) {
			proxy.cutStreams();
			await reserve();
			await reserve();
		}
		if (got.length === 4) break;
	}
	assert.deepEqual(
		got.map((e) => e.id),
		await feed(type),
		"every event once, in order",
	);
	const connections = proxy.requests("GET", "/v1/events/stream");
	assert.equal(connections.length, 2);
	assert.equal(connections[0]?.headers["last-event-id"], undefined);
	assert.equal(connections[1]?.headers["last-event-id"], got[1]?.cursor);
});

test("from the head of the feed: only what commits after", async () => {
	const type = "stock.adjusted";
	const ctl = new AbortController();
	const client = createClient({ baseUrl: proxy.url, apiKey: server.adminKey });
	const stream = client.streamEvents({ query: { type, after: "latest" }, signal: ctl.signal });
	const got: StockadeEvent[] = [];
	const opened = proxy.requests("GET", "/v1/events/stream").length;
	const reading = (async () => {
		for await (const event of stream) got.push(event);
	})();
	// The server takes the head of the feed before it answers: once its answer is through the
	// proxy, what commits next is after the head.
	await waitFor(() => proxy.requests("GET", "/v1/events/stream")[opened]?.status === 200, {
		what: "the stream to be open",
	});
	const before = await feed(type);
	await adjust(2);
	await waitFor(() => got.length === 2, { what: "the two new events" });
	ctl.abort(new Error("done"));
	await assert.rejects(reading, /done/);
	assert.deepEqual(
		got.map((e) => e.id),
		(await feed(type)).slice(before.length),
	);
});

test("a refusal at connection is a StockadeError", async () => {
	const key = await admin.createKey({ body: { name: "shop", role: "storefront" } });
	const shop = createClient({ baseUrl: server.url, apiKey: key.secret });
	await assert.rejects(
		async () => {
			for await (const _ of shop.streamEvents()) assert.fail("a storefront key reads no events");
		},
		(err: unknown) => err instanceof StockadeError && err.code === "forbidden" && err.status === 403,
	);
});

test("the stream's bytes: lines cut anywhere, CRLF, comments, multi-line data, after dropped on resume", async () => {
	// A server of the format alone, writing each event in pieces cut at awkward places.
	const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
	const events = [
		`: stockade events\r\n\r\nid: c1\r\nevent: stock.set\r\ndata: {"id":"e1",\r\ndata: "cursor":"c1"}\r\n\r\n`,
		`id: c2\nevent: stock.set\ndata: {"id":"e2","cursor":"c2"}\n\n: keep-alive\n\n`,
	];
	const fake = createServer((req, res) => {
		seen.push({ url: req.url ?? "", headers: req.headers });
		res.writeHead(200, { "Content-Type": "text/event-stream" });
		const text = events[seen.length - 1] ?? "";
		// One byte at a time, so that every boundary (a CR apart from its LF too) falls between chunks.
		let i = 0;
		const write = () => {
			if (i < text.length) res.write(text[i++] ?? "", write);
			else res.end();
		};
		write();
	});
	await new Promise<void>((done) => fake.listen(0, "127.0.0.1", done));
	try {
		const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
		const stream = createClient({ baseUrl: url }).streamEvents({ query: { after: "latest", type: "stock.set" } });
		const got: string[] = [];
		for await (const event of stream) {
			got.push(event.id);
			if (got.length === 2) break;
		}
		assert.deepEqual(got, ["e1", "e2"]);
		assert.equal(seen[0]?.url, "/v1/events/stream?after=latest&type=stock.set");
		assert.equal(seen[0]?.headers["last-event-id"], undefined);
		assert.equal(seen[1]?.url, "/v1/events/stream?type=stock.set", "after gives way to Last-Event-ID");
		assert.equal(seen[1]?.headers["last-event-id"], "c1");
	} finally {
		fake.closeAllConnections();
		fake.close();
	}
});
