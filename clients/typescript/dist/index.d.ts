export { type CallOperationId, type CallOptions, type Client, type ClientOptions, createClient, EventStream, type OperationArgs, type OperationBody, type OperationId, type OperationResult, type StockadeEvent, type StockadeResponse, type StreamOperationId, } from "./client.js";
export { type Problem, type ProblemCode, StockadeError, type StockadeErrorInit } from "./errors.js";
export type { components, operations, paths } from "./schema.js";
export { defaultToleranceSeconds, signatureHeader, signWebhook, type VerifyWebhookOptions, verifyWebhook, type WebhookSecret, } from "./webhooks.js";
