// The package as a user gets it: packed, or installed from the repository's folder, into a fresh
// Node project that runs the README's example against a real `stockade serve`; and fit for a
// browser bundle.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { packageDir, startStockade } from "./helpers/stockade.js";

const run = promisify(execFile);
const npmFlags = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

let scratch: string;
before(async () => {
	scratch = await mkdtemp(join(tmpdir(), "stockade-package-"));
});
after(() => rm(scratch, { recursive: true, force: true }));

/** The README's example: its first code block fenced as js. */
async function readmeExample(): Promise<string> {
	const readme = await readFile(join(packageDir, "README.md"), "utf8");
	const block = /^```js\n([\s\S]*?)^```$/m.exec(readme);
	assert.ok(block?.[1], "README.md has a js code block");
	return block[1];
}

/** Makes a fresh Node project, installs `what` into it with npm, and writes the README's example. */
async function project(name: string, what: string): Promise<string> {
	const dir = join(scratch, name);
	await mkdir(dir);
	await writeFile(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
	await run("npm", ["install", what, ...npmFlags], { cwd: dir });
	await writeFile(join(dir, "checkout.mjs"), await readmeExample());
	return dir;
}

/** Runs the example in `dir` against a fresh server and checks what it printed. */
async function runExample(dir: string) {
	const server = await startStockade();
	try {
		const { stdout } = await run("node", ["checkout.mjs"], {
			cwd: dir,
			env: { ...process.env, STOCKADE_URL: server.url, STOCKADE_KEY: server.adminKey },
		});
		assert.match(stdout, /^committed \[ \{ sku: 'widget', location: 'ewr', quantity: 3 \} \]$/m);
		assert.match(stdout, /^\{ on_hand: 10, reserved: 0, committed: 3, available: 7 \}$/m);
		assert.match(stdout, /^409 insufficient_stock$/m);
	} finally {
		await server.stop();
	}
}

test("npm pack: the files a user gets", async () => {
	const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--loglevel=error"], { cwd: packageDir });
	const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
	const files = info?.files.map((f) => f.path) ?? [];
	for (const want of ["package.json", "README.md", "CHANGELOG.md", "dist/index.js", "dist/index.d.ts"]) {
		assert.ok(files.includes(want), `the package has ${want}: ${files}`);
	}
	const stray = files.filter((f) => !/^(dist\/[a-z]+\.(js|d\.ts)|package\.json|README\.md|CHANGELOG\.md)$/.test(f));
	assert.deepEqual(stray, [], "nothing but the compiled modules and the docs");
});

test("the packed package, installed into a fresh project, runs the README's example", async () => {
	const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", scratch, "--loglevel=error"], {
		cwd: packageDir,
	});
	const [info] = JSON.parse(stdout) as { filename: string }[];
	assert.ok(info);
	const dir = await project("from-tarball", join(scratch, info.filename));
	await runExample(dir);

	// And it type-checks, as the same file would in a TypeScript project of the user's.
	const tsc = join(packageDir, "node_modules", "typescript", "bin", "tsc");
	await run(
		"node",
		[
			tsc,
			"--noEmit",
			"--strict",
			"--skipLibCheck",
			"--allowJs",
			"--checkJs",
			"--module",
			"nodenext",
			"--target",
			"es2022",
			"--types",
			"node",
			"--typeRoots",
			join(packageDir, "node_modules", "@types"),
			"checkout.mjs",
		],
		{ cwd: dir },
	).catch((err: { stdout?: string }) => assert.fail(`the README's example does not type-check:\n${err.stdout}`));
});

test("npm install of the repository's folder runs the README's example", async () => {
	const dir = await project("from-folder", packageDir);
	await runExample(dir);
});

test("the modules import nothing but each other: fit for a browser bundle", async () => {
	const dist = join(packageDir, "dist");
	for (const file of (await readdir(dist)).filter((f) => f.endsWith(".js"))) {
		const text = await readFile(join(dist, file), "utf8");
		for (const m of text.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"/g)) {
			const spec = m[1] ?? m[2] ?? "";
			assert.match(spec, /^\.\/[a-z]+\.js$/, `${file} imports ${spec}`);
		}
		assert.doesNotMatch(text, /\b(require\(|process\.|Buffer\b|__dirname)/, `${file} uses a Node-only global`);
	}
});
