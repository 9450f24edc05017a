// The README's tour through the package, against the real service: locations, stock, a
// reservation confirmed into an order, a show with a seat map and a best-available hold, a payment
// settled by a signed webhook, a waiting room in front of a show, and every kind of refusal as a
// StockadeError.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Client, createClient, StockadeError, signWebhook } from "@stockade/client";
import { type Stockade, startStockade, waitFor } from "./helpers/stockade.js";

let server: Stockade;
let admin: Client;

before(async () => {
	server = await startStockade();
	admin = createClient({ baseUrl: server.url, apiKey: server.adminKey });
});
after(() => server?.stop());

/** Rejects unless `call` fails with a StockadeError of this code and status, sent once. */
async function refused(call: Promise<unknown>, code: string, status: number): Promise<StockadeError> {
	const err = await call.then(
		(v) => assert.fail(`want ${code}, got success: ${JSON.stringify(v)}`),
		(e: unknown) => e,
	);
	assert.ok(err instanceof StockadeError, `want a StockadeError ${code}, got ${err}`);
	assert.equal(err.code, code, err.message);
	assert.equal(err.status, status, err.message);
	assert.ok(err.detail.length > 0, "the detail says what is wrong");
	assert.equal(err.message, `${err.code}: ${err.detail}`);
	assert.ok(err.requestId, "the error carries the request's id");
	if (status !== 429 && status < 500) assert.equal(err.attempts, 1, "a refusal is not retried");
	return err;
}

describe("the tour", () => {
	test("locations, stock, and a reservation confirmed into an order", async () => {
		const loc = await admin.putLocation({ path: { id: "ewr" }, body: { name: "Newark", lat: 40.73, lon: -74.17 } });
		assert.equal(loc.id, "ewr");
		const level = await admin.setStock({ path: { sku: "widget", location: "ewr" }, body: { on_hand: 10 } });
		assert.equal(level.on_hand, 10);

		const body = { lines: [{ sku: "widget", quantity: 3 }], ttl_seconds: 600 };
		const first = await admin.request("reserve", { body, header: { "Idempotency-Key": "cart-42" } });
		assert.equal(first.status, 201);
		assert.equal(first.data.status, "held");
		assert.match(first.data.id, /^res_/);
		assert.equal(first.replayed, false);
		assert.equal(first.idempotencyKey, "cart-42");

		const again = await admin.request("reserve", { body, header: { "Idempotency-Key": "cart-42" } });
		assert.equal(again.replayed, true, "the same key answers the first success again");
		assert.deepEqual(again.data, first.data);

		const order = await admin.confirmReservation({ path: { id: first.data.id } });
		assert.equal(order.status, "committed");
		assert.match(order.id, /^ord_/);
		assert.deepEqual(order.allocations, [{ sku: "widget", location: "ewr", quantity: 3 }]);

		const stock = await admin.getStock({ path: { sku: "widget" } });
		assert.deepEqual(stock.totals, { on_hand: 10, reserved: 0, committed: 3, available: 7 });

		const ledger = await admin.listMovements({ query: { sku: "widget" } });
		assert.ok(ledger.movements.length >= 2, "the ledger has the set and the reservation");
		// A document that has not changed since its ETag: 304, no body.
		const doc = await admin.request("openapi");
		assert.equal(doc.data?.openapi, "3.1.0");
		const etag = doc.headers.get("ETag") ?? "";
		const same = await admin.request("openapi", { header: { "If-None-Match": etag } });
		assert.equal(same.status, 304);
		assert.equal(same.data, undefined);

		const locations = await admin.listLocations();
		assert.deepEqual(
			locations.locations.map((l) => l.id),
			["ewr"],
		);
	});

	test("a show with a seat map and a best-available hold confirmed into a booking", async () => {
		const show = await admin.putShow({
			path: { id: "opening" },
			body: {
				name: "Opening night",
				focal: { x: 10, y: 0 },
				rows: [
					{ section: "stalls", row: "A", first: 1, last: 20, category: "A", aisles_after: [10], start: { x: 0, y: 1 } },
					{
						section: "stalls",
						row: "B",
						first: 1,
						last: 20,
						category: "B",
						accessible: [1, 20],
						start: { x: 0, y: 2 },
					},
				],
				areas: [{ name: "standing", capacity: 200 }],
			},
		});
		assert.equal(show.id, "opening");

		const hold = await admin.holdSeats({
			path: { id: "opening" },
			body: {
				best_available: [{ quantity: 2, category: "A" }],
				general_admission: [{ area: "standing", quantity: 2 }],
			},
			header: { "Idempotency-Key": "basket-7" },
		});
		assert.equal(hold.status, "held");
		assert.deepEqual(
			hold.seats,
			["stalls/A/11", "stalls/A/12"],
			"the best pair: side by side, nearest the focal point",
		);
		assert.deepEqual(hold.general_admission, [{ area: "standing", quantity: 2 }]);

		const booking = await admin.confirmHold({ path: { id: hold.id } });
		assert.equal(booking.status, "booked");
		assert.equal(booking.hold_id, hold.id);

		const view = await admin.getShow({ path: { id: "opening" } });
		const booked = view.counts.filter((c) => c.status === "booked").reduce((n, c) => n + c.count, 0);
		assert.equal(booked, 2);
		const seats = await admin.listSeats({ path: { id: "opening" }, query: { status: "booked" } });
		assert.deepEqual(
			seats.seats.map((s) => s.id),
			["stalls/A/11", "stalls/A/12"],
		);
	});

	test("a payment settled by a signed webhook confirms its reservation", async () => {
		await admin.setStock({ path: { sku: "gadget", location: "ewr" }, body: { on_hand: 5 } });
		const res = await admin.reserve({
			body: { lines: [{ sku: "gadget", quantity: 1 }], metadata: { cart: "c_42", customer: "cus_7" } },
		});
		const carts = await admin.listReservations({ query: { metadata: { cart: "c_42" } } });
		assert.deepEqual(
			carts.reservations.map((r) => r.id),
			[res.id],
			"the list filtered by metadata[cart]",
		);
		const payment = await admin.createPayment({
			body: { target: { kind: "reservation", id: res.id }, amount: 2500, currency: "EUR" },
		});
		assert.equal(payment.status, "pending");

		const outcome = { event_id: "psp_evt_1", payment_id: payment.id, status: "succeeded" } as const;
		const paid = await admin.paymentWebhook({ body: outcome, webhookSecret: server.webhookSecret });
		assert.equal(paid.status, "succeeded");
		assert.equal(paid.resolution, "confirmed");
		assert.match(paid.order_id ?? "", /^ord_/);
		assert.equal((await admin.getReservation({ path: { id: res.id } })).status, "confirmed");

		// The same signature by hand, as a payment system in another language would make it.
		const body = JSON.stringify({ ...outcome, event_id: "psp_evt_2" });
		const answer = await fetch(`${server.url}/v1/payments/webhook`, {
			method: "POST",
			headers: {
				"Content-Type": "application/json",
				"Stockade-Signature": await signWebhook(body, server.webhookSecret),
			},
			body,
		});
		assert.equal(answer.status, 200, await answer.text());

		await refused(
			admin.paymentWebhook({ body: { ...outcome, event_id: "psp_evt_3" }, webhookSecret: "not-the-secret".repeat(3) }),
			"unauthenticated",
			401,
		);
	});

	test("a waiting room admits a visitor, whose hold carries the admission", async () => {
		await admin.putShow({
			path: { id: "premiere" },
			body: { name: "Premiere", rows: [{ section: "s", row: "A", first: 1, last: 4 }] },
		});
		const room = await admin.createRoom({
			body: { id: "premiere-sale", show_id: "premiere", active_limit: 10, admit_per_minute: 600 },
		});
		assert.match(room.secret, /^rsec_[0-9a-f]{64}$/, "the secret, in the answer to the creation only");
		const read = await admin.getRoom({ path: { id: "premiere-sale" } });
		assert.equal("secret" in read, false);
		assert.deepEqual(read.stock, { free: 4, held: 0 });

		const first = await admin.joinRoom({ path: { id: "premiere-sale" }, body: { visitor_id: "visitor-1" } });
		assert.equal(first.position, 1);
		const again = await admin.joinRoom({ path: { id: "premiere-sale" }, body: { visitor_id: "visitor-1" } });
		assert.deepEqual(again.position, first.position, "a visitor has one place");

		const err = await refused(
			admin.holdSeats({ path: { id: "premiere" }, body: { seats: ["s/A/1"] } }),
			"admission_required",
			403,
		);
		assert.match(err.detail, /premiere-sale/);

		// The service admits on its own, a few times a second.
		let token = "";
		await waitFor(
			async () => {
				const ticket = await admin.getRoomTicket({ path: { id: "premiere-sale", visitor: "visitor-1" } });
				token = ticket.token ?? "";
				return ticket.status === "admitted";
			},
			{ what: "the visitor to be admitted" },
		);
		await refused(
			admin.holdSeats({
				path: { id: "premiere" },
				body: { seats: ["s/A/1"], admission: { visitor_id: "visitor-2", token } },
			}),
			"admission_invalid",
			403,
		);
		const hold = await admin.holdSeats({
			path: { id: "premiere" },
			body: { seats: ["s/A/1"], admission: { visitor_id: "visitor-1", token } },
		});
		assert.equal(hold.status, "held");

		const closed = await admin.updateRoom({ path: { id: "premiere-sale" }, body: { status: "closed" } });
		assert.equal(closed.status, "closed");
		const rooms = await admin.listRooms({ query: { limit: 10 } });
		assert.deepEqual(
			rooms.rooms.map((r) => r.id),
			["premiere-sale"],
		);
	});
});

describe("every kind of refusal is a StockadeError", () => {
	let reader: Client;
	let anonymous: Client;

	before(async () => {
		await admin.putLocation({ path: { id: "lhr" }, body: { name: "London" } });
		await admin.setStock({ path: { sku: "bolt", location: "lhr" }, body: { on_hand: 5 } });
		const key = await admin.createKey({ body: { name: "auditor", role: "reader" } });
		reader = createClient({ baseUrl: server.url, apiKey: key.secret });
		anonymous = createClient({ baseUrl: server.url });
	});

	test("400 invalid, 413 and 401, 403, 404", async () => {
		await refused(admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 0 }] } }), "invalid", 400);
		const many = Array.from({ length: 40_000 }, (_, i) => ({ sku: `sku-${i}`, quantity: 1 }));
		await refused(admin.reserve({ body: { lines: many } }), "invalid", 413);
		const err = await refused(anonymous.getStock({ path: { sku: "bolt" } }), "unauthenticated", 401);
		assert.equal(err.type, "urn:stockade:problem:unauthenticated");
		await refused(reader.putLocation({ path: { id: "x" }, body: { name: "X" } }), "forbidden", 403);
		await refused(admin.getReservation({ path: { id: "res_missing" } }), "not_found", 404);
	});

	test("409 insufficient_stock, version_conflict, invalid_state", async () => {
		await refused(admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 6 }] } }), "insufficient_stock", 409);
		await refused(
			admin.setStock({ path: { sku: "bolt", location: "lhr" }, body: { on_hand: 7, expected_version: 999 } }),
			"version_conflict",
			409,
		);
		const res = await admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 1 }] } });
		await admin.releaseReservation({ path: { id: res.id } });
		await refused(admin.confirmReservation({ path: { id: res.id } }), "invalid_state", 409);
	});

	test("409 seats_unavailable and sold_out", async () => {
		await admin.putShow({
			path: { id: "matinee" },
			body: { name: "Matinee", rows: [{ section: "s", row: "A", first: 1, last: 4, category: "A" }] },
		});
		await admin.holdSeats({ path: { id: "matinee" }, body: { seats: ["s/A/1"] } });
		await refused(admin.holdSeats({ path: { id: "matinee" }, body: { seats: ["s/A/1"] } }), "seats_unavailable", 409);
		await refused(
			admin.holdSeats({ path: { id: "matinee" }, body: { best_available: [{ quantity: 4, category: "A" }] } }),
			"sold_out",
			409,
		);
	});

	test("409 payment_exists and payment_in_flight", async () => {
		const res = await admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 1 }] } });
		const target = { kind: "reservation", id: res.id } as const;
		const payment = await admin.createPayment({ body: { target, amount: 100, currency: "EUR" } });
		await refused(admin.createPayment({ body: { target, amount: 100, currency: "EUR" } }), "payment_exists", 409);
		await admin.applyPaymentOutcome({
			path: { id: payment.id },
			body: { event_id: "evt-processing", status: "processing" },
		});
		await refused(admin.releaseReservation({ path: { id: res.id } }), "payment_in_flight", 409);
	});

	test("410 reservation_expired and hold_expired", async () => {
		await admin.putShow({
			path: { id: "late" },
			body: { name: "Late show", rows: [{ section: "s", row: "A", first: 1, last: 2 }] },
		});
		const [res, hold] = await Promise.all([
			admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 1 }], ttl_seconds: 1 } }),
			admin.holdSeats({ path: { id: "late" }, body: { seats: ["s/A/1"], ttl_seconds: 1 } }),
		]);
		await waitFor(async () => (await admin.getReservation({ path: { id: res.id } })).status === "expired", {
			what: "the reservation to expire",
		});
		await waitFor(async () => (await admin.getHold({ path: { id: hold.id } })).status === "expired", {
			what: "the hold to expire",
		});
		await refused(admin.confirmReservation({ path: { id: res.id } }), "reservation_expired", 410);
		await refused(admin.confirmHold({ path: { id: hold.id } }), "hold_expired", 410);
	});

	test("422 idempotency_mismatch", async () => {
		const header = { "Idempotency-Key": "basket-mismatch" };
		await admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 1 }] }, header });
		await refused(
			admin.reserve({ body: { lines: [{ sku: "bolt", quantity: 2 }] }, header }),
			"idempotency_mismatch",
			422,
		);
	});

	test("429 rate_limited, with Retry-After, when the call may not retry", async () => {
		const key = await admin.createKey({ body: { name: "slow", role: "reader", rate_limit: 0.5 } });
		const slow = createClient({ baseUrl: server.url, apiKey: key.secret, retries: 0 });
		let err: StockadeError | undefined;
		for (let i = 0; i < 10 && err === undefined; i++) {
			err = await slow.getStock({ path: { sku: "bolt" } }).then(
				() => undefined,
				(e: unknown) => (e instanceof StockadeError ? e : assert.fail(String(e))),
			);
		}
		assert.ok(err, "the key's bucket ran out");
		await refused(Promise.reject(err), "rate_limited", 429);
		assert.ok((err.retryAfter ?? 0) >= 1, `Retry-After ${err.retryAfter}`);
		assert.equal(err.attempts, 1);
	});
});
