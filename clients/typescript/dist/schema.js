// Generated from httpapi/openapi.json by scripts/generate.mjs (openapi-typescript): do not edit.
// Run `npm run generate` after a change to the document.
export {};
