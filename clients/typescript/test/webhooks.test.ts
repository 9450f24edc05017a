// Webhook signatures: an outbound endpoint registered on a local receiver, its deliveries checked
// with verifyWebhook (and refused when tampered with, stale or signed with another secret), and
// signWebhook checked against the Go package's own example.

import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import {
	type Client,
	createClient,
	StockadeError,
	type StockadeEvent,
	signWebhook,
	verifyWebhook,
} from "@stockade/client";
import { type Stockade, startStockade, waitFor } from "./helpers/stockade.js";

/** A delivery as the receiver got it: the raw body, before any parsing, and the headers. */
interface Delivery {
	headers: IncomingHttpHeaders;
	body: Buffer;
}

let server: Stockade;
let admin: Client;
const deliveries: Delivery[] = [];
const receiver = createServer((req, res) => {
	const chunks: Buffer[] = [];
	req.on("data", (c: Buffer) => chunks.push(c));
	req.on("end", () => {
		deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
		res.writeHead(204).end();
	});
});

before(async () => {
	server = await startStockade();
	admin = createClient({ baseUrl: server.url, apiKey: server.adminKey });
	await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
	await admin.putLocation({ path: { id: "ewr" }, body: { name: "Newark" } });
	await admin.setStock({ path: { sku: "hook", location: "ewr" }, body: { on_hand: 100 } });
});
after(async () => {
	await server?.stop();
	receiver.closeAllConnections();
	receiver.close();
});

async function refusedWith(check: Promise<void>, pattern: RegExp) {
	await assert.rejects(
		check,
		(err: unknown) =>
			err instanceof StockadeError && err.code === "unauthenticated" && err.status === 401 && pattern.test(err.detail),
	);
}

/** The next delivery of an order.committed event for `orderId`. */
async function deliveryOf(orderId: string): Promise<Delivery> {
	let found: Delivery | undefined;
	await waitFor(
		() => {
			found = deliveries.find((d) => (JSON.parse(d.body.toString("utf8")) as StockadeEvent).aggregate_id === orderId);
			return found !== undefined;
		},
		{ what: `the delivery of ${orderId}` },
	);
	return found as Delivery;
}

test("an outbound endpoint's deliveries verify with its secret; tampered or stale ones do not", async () => {
	const { port } = receiver.address() as AddressInfo;
	const endpoint = await admin.createWebhookEndpoint({
		body: { url: `http://127.0.0.1:${port}/hooks`, events: ["order.committed"] },
	});
	assert.match(endpoint.secret, /^whsec_/);

	const order = await admin.checkout({ body: { lines: [{ sku: "hook", quantity: 1 }] } });
	const { headers, body } = await deliveryOf(order.id);
	const signature = headers["stockade-signature"] as string;
	assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);

	await verifyWebhook(signature, body, endpoint.secret);
	await verifyWebhook(signature, body.toString("utf8"), endpoint.secret); // the body as text, too
	const event = JSON.parse(body.toString("utf8")) as StockadeEvent;
	assert.equal(event.type, "order.committed");
	assert.equal(headers["stockade-event-id"], event.id);
	assert.ok(headers["stockade-delivery"], "a delivery id to drop repeats by");

	const tampered = Buffer.from(body.toString("utf8").replace('"quantity":1', '"quantity":9'));
	assert.notDeepEqual(tampered, body);
	await refusedWith(verifyWebhook(signature, tampered, endpoint.secret), /no signature matches/);
	await refusedWith(verifyWebhook(signature, body, "whsec_another"), /no signature matches/);
	const t = Number(/t=(\d+)/.exec(signature)?.[1]);
	await refusedWith(verifyWebhook(signature, body, endpoint.secret, { now: (t + 301) * 1000 }), /stale/);
	await refusedWith(verifyWebhook(signature, body, endpoint.secret, { now: (t - 301) * 1000 }), /stale/);
	await verifyWebhook(signature, body, endpoint.secret, { now: (t + 60) * 1000, toleranceSeconds: 60 });
	await refusedWith(verifyWebhook(undefined, body, endpoint.secret), /missing/);
	await refusedWith(verifyWebhook("t=1,v1=XYZ", body, endpoint.secret), /malformed/);
	await refusedWith(verifyWebhook(signature.replace(/^t=/, "t=0"), body, endpoint.secret), /malformed/);

	// A rotation: for a while, each delivery is signed with the new secret and the old one.
	const rotated = await admin.rotateWebhookSecret({ path: { id: endpoint.id }, body: { overlap_seconds: 3600 } });
	assert.notEqual(rotated.secret, endpoint.secret);
	const next = await admin.checkout({ body: { lines: [{ sku: "hook", quantity: 1 }] } });
	const second = await deliveryOf(next.id);
	const both = second.headers["stockade-signature"] as string;
	assert.equal(both.match(/v1=/g)?.length, 2, both);
	await verifyWebhook(both, second.body, rotated.secret);
	await verifyWebhook(both, second.body, endpoint.secret);
	await verifyWebhook(both, second.body, ["whsec_unrelated", rotated.secret]);
});

test("signWebhook signs as the Go package does", async () => {
	// httpapi's ExampleSignWebhook: the same secret, time and body, the same header.
	const body = `{"event_id":"psp-1","payment_id":"pay_1","status":"succeeded"}`;
	assert.equal(
		await signWebhook(body, "whsec_x", new Date(1_900_000_000_000)),
		"t=1900000000,v1=5fc2d82c6945a0caeb215ca62c77ef6f665e492f041bc11f2403f1e76a788957",
	);
	const two = await signWebhook(new TextEncoder().encode(body), ["a-secret", "b-secret"], 1_900_000_000_000);
	assert.match(two, /^t=1900000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
	await verifyWebhook(two, body, "b-secret", { now: 1_900_000_000_000 });
});
