// @stockade/client: a client of the stockade HTTP API, typed from its OpenAPI document.
// Only fetch, Web Crypto, TextEncoder/TextDecoder, ReadableStream and AbortController: the same
// entry serves Node 20+ and browsers.
export { createClient, EventStream, } from "./client.js";
export { StockadeError } from "./errors.js";
export { defaultToleranceSeconds, signatureHeader, signWebhook, verifyWebhook, } from "./webhooks.js";
