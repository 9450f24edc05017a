import { StockadeError } from "./errors.js";

// The Stockade-Signature scheme, as the server signs the deliveries of outbound webhook endpoints
// and verifies the payment webhook:
//
//	Stockade-Signature: t=<unix seconds>,v1=<signature>[,v1=<signature>…]
//
// where a signature is the lowercase hex HMAC-SHA256, keyed with a secret, of the time t, a dot and
// the body exactly as sent: "<t>.<body>". A request passes if any v1 entry matches with any secret
// and t is within the tolerance of the receiver's clock. Entries other than t and v1 are ignored.
// Web Crypto only (crypto.subtle), so that it runs in Node 20+, browsers, Deno and workers alike.

/** A webhook secret: the text of an endpoint's `whsec_…` secret or of a payment webhook's secret
 * file line, or its bytes. */
export type WebhookSecret = string | Uint8Array;

/** The header that carries the signature. */
export const signatureHeader = "Stockade-Signature";

/** The tolerance the server applies to the payment webhook, and the default of verifyWebhook. */
export const defaultToleranceSeconds = 300;

const encoder = new TextEncoder();

function bytes(v: string | Uint8Array): Uint8Array<ArrayBuffer> {
	return typeof v === "string" ? encoder.encode(v) : new Uint8Array(v);
}

function list(secrets: WebhookSecret | readonly WebhookSecret[]): readonly WebhookSecret[] {
	return typeof secrets === "string" || secrets instanceof Uint8Array ? [secrets] : secrets;
}

function key(secret: WebhookSecret, usage: "sign" | "verify"): Promise<CryptoKey> {
	return crypto.subtle.importKey("raw", bytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

/** "<t>.<body>", the signed message. */
function message(t: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
	const head = encoder.encode(`${t}.`);
	const rest = bytes(body);
	const out = new Uint8Array(head.length + rest.length);
	out.set(head);
	out.set(rest, head.length);
	return out;
}

function unixSeconds(at: Date | number): number {
	return Math.floor((typeof at === "number" ? at : at.getTime()) / 1000);
}

/**
 * The Stockade-Signature header value of a request whose body is `body`, signed with each of
 * `secrets` (one v1 entry each) at the time `at` (now when left out). Send the body byte for byte as
 * signed. This is what a payment system does to report an outcome to `POST /v1/payments/webhook`.
 */
export async function signWebhook(
	body: string | Uint8Array,
	secrets: WebhookSecret | readonly WebhookSecret[],
	at: Date | number = Date.now(),
): Promise<string> {
	const t = String(unixSeconds(at));
	const data = message(t, body);
	let header = `t=${t}`;
	for (const secret of list(secrets)) {
		const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key(secret, "sign"), data));
		header += `,v1=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
	}
	return header;
}

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
	/** How far the signed time may be from `now`, either way, in seconds. Default: 300. */
	toleranceSeconds?: number;
	/** The receiver's clock. Default: now. */
	now?: Date | number;
}

const malformed = `${signatureHeader}: malformed: want t=<unix seconds>,v1=<64 lowercase hex digits of HMAC-SHA256>`;

function refuse(detail: string): StockadeError {
	return new StockadeError({ code: "unauthenticated", status: 401, detail });
}

/**
 * Checks the Stockade-Signature `header` of a webhook request (its value, or its values as Node's
 * `req.headers` may give them) whose raw body is `body` (the bytes
 * as received, before any JSON parsing) against `secrets`, as the server checks the payment webhook:
 * it resolves if a v1 signature matches with a secret and the signed time is within the tolerance
 * of now, and otherwise rejects with a {@link StockadeError} `unauthenticated` (status 401) that
 * says which check failed. A receiver of an outbound webhook endpoint passes the endpoint's secret
 * (and, during a rotation's overlap, either secret matches).
 */
export async function verifyWebhook(
	header: string | readonly string[] | null | undefined,
	body: string | Uint8Array,
	secrets: WebhookSecret | readonly WebhookSecret[],
	options: VerifyWebhookOptions = {},
): Promise<void> {
	if (typeof header !== "string") {
		if (header === null || header === undefined || header.length === 0) {
			throw refuse(
				`${signatureHeader}: missing; sign the body with a webhook secret: t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">`,
			);
		}
		if (header.length > 1) throw refuse(`${signatureHeader}: given more than once`);
		return verifyWebhook(header[0], body, secrets, options);
	}
	let t: string | undefined;
	const macs: Uint8Array<ArrayBuffer>[] = [];
	for (const item of header.split(",")) {
		const entry = item.trim();
		const eq = entry.indexOf("=");
		if (eq < 0) throw refuse(malformed);
		const name = entry.slice(0, eq);
		const value = entry.slice(eq + 1);
		if (name === "t") {
			if (t !== undefined || !/^(0|[1-9]\d*)$/.test(value)) throw refuse(malformed);
			t = value;
		} else if (name === "v1") {
			if (!/^[0-9a-f]{64}$/.test(value)) throw refuse(malformed);
			macs.push(Uint8Array.from(value.match(/../g) ?? [], (h) => Number.parseInt(h, 16)));
		}
	}
	if (t === undefined || macs.length === 0) throw refuse(malformed);

	const data = message(t, body);
	let matched = false;
	for (const secret of list(secrets)) {
		const k = await key(secret, "verify");
		for (const mac of macs) {
			// crypto.subtle.verify compares in constant time.
			if (await crypto.subtle.verify("HMAC", k, mac, data)) matched = true;
		}
	}
	if (!matched) throw refuse(`${signatureHeader}: no signature matches the body with a webhook secret`);

	const tolerance = options.toleranceSeconds ?? defaultToleranceSeconds;
	const skew = unixSeconds(options.now ?? Date.now()) - Number(t);
	if (Math.abs(skew) > tolerance) {
		throw refuse(
			`${signatureHeader}: stale: signed at t=${t}, ${Math.abs(skew)}s ${skew < 0 ? "after" : "before"} ` +
				`the receiver's clock, more than the tolerance of ${tolerance}s`,
		);
	}
}
