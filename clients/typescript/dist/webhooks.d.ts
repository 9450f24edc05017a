/** A webhook secret: the text of an endpoint's `whsec_…` secret or of a payment webhook's secret
 * file line, or its bytes. */
export type WebhookSecret = string | Uint8Array;
/** The header that carries the signature. */
export declare const signatureHeader = "Stockade-Signature";
/** The tolerance the server applies to the payment webhook, and the default of verifyWebhook. */
export declare const defaultToleranceSeconds = 300;
/**
 * The Stockade-Signature header value of a request whose body is `body`, signed with each of
 * `secrets` (one v1 entry each) at the time `at` (now when left out). Send the body byte for byte as
 * signed. This is what a payment system does to report an outcome to `POST /v1/payments/webhook`.
 */
export declare function signWebhook(body: string | Uint8Array, secrets: WebhookSecret | readonly WebhookSecret[], at?: Date | number): Promise<string>;
/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
    /** How far the signed time may be from `now`, either way, in seconds. Default: 300. */
    toleranceSeconds?: number;
    /** The receiver's clock. Default: now. */
    now?: Date | number;
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
export declare function verifyWebhook(header: string | readonly string[] | null | undefined, body: string | Uint8Array, secrets: WebhookSecret | readonly WebhookSecret[], options?: VerifyWebhookOptions): Promise<void>;
