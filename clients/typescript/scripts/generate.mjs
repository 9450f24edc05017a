#!/usr/bin/env node
// Generates the package's two files that come from the API's OpenAPI
// document (httpapi/openapi.json, the document the service serves at
// /openapi.json):
//
//   src/schema.ts  the types of every path, operation and component,
//                  made by openapi-typescript;
//   src/routes.ts  each operation's method, path, whether it takes an
//                  Idempotency-Key, how it is authenticated and whether it
//                  answers a stream: what the client needs at run time,
//                  which types alone cannot carry.
//
// With --check it writes nothing and fails, naming the files, when either
// differs from what it would write: the build runs it that way, so a
// change to the document that the package has not followed fails.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const documentPath = here("../../../httpapi/openapi.json");
const check = process.argv.includes("--check");

const banner = (what) =>
	`// Generated from httpapi/openapi.json by scripts/generate.mjs (${what}): do not edit.\n` +
	"// Run `npm run generate` after a change to the document.\n\n";

const document = JSON.parse(await readFile(documentPath, "utf8"));

const schema = banner("openapi-typescript") + astToString(await openapiTS(document));

const methods = ["get", "put", "post", "delete", "patch", "head", "options"];
const parameter = (p) => (p.$ref ? document.components.parameters[p.$ref.split("/").pop()] : p);
const response = (r) => (r.$ref ? document.components.responses[r.$ref.split("/").pop()] : r);
const lines = [];
for (const [path, item] of Object.entries(document.paths)) {
	for (const method of methods) {
		const op = item[method];
		if (!op) continue;
		if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path}: no operationId`);
		const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(parameter);
		const idempotencyKey = params.some((p) => p.in === "header" && p.name === "Idempotency-Key");
		const security = op.security ?? document.security ?? [{ bearer: [] }];
		const auth = security.length === 0 ? "none" : Object.keys(security[0])[0];
		const stream = Object.entries(op.responses)
			.filter(([status]) => status.startsWith("2"))
			.some(([, r]) => Object.hasOwn(response(r).content ?? {}, "text/event-stream"));
		lines.push(
			`\t${op.operationId}: { method: "${method.toUpperCase()}", path: "${path}", ` +
				`idempotencyKey: ${idempotencyKey}, auth: "${auth}", stream: ${stream} },`,
		);
	}
}
const routes =
	banner("each operation's route") +
	"/** Each operation of the API by its operationId: its method and path, whether it takes an\n" +
	" * Idempotency-Key, how it is authenticated (an API key, a webhook signature or nothing) and\n" +
	" * whether it answers Server-Sent Events. */\n" +
	`export const routes = {\n${lines.join("\n")}\n} as const;\n`;

const outputs = { "src/schema.ts": schema, "src/routes.ts": routes };
const stale = [];
for (const [file, text] of Object.entries(outputs)) {
	const path = here(`../${file}`);
	if (check) {
		const now = await readFile(path, "utf8").catch(() => "");
		if (now !== text) stale.push(file);
	} else {
		await writeFile(path, text);
	}
}
if (stale.length > 0) {
	console.error(
		`${stale.join(" and ")} differ from what httpapi/openapi.json generates: ` +
			"run `npm run generate` in clients/typescript, then make the package follow the change " +
			"(`npm run build` type-checks it against the new types).",
	);
	process.exit(1);
}
