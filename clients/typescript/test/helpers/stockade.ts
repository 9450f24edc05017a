// Runs the real service for the tests: `stockade serve` built from this repository, on a free
// loopback port, with a fresh SQLite file, an admin key and a payment webhook secret.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The package's folder, and the repository's. */
export const packageDir = fileURLToPath(new URL("../../../", import.meta.url));
export const repoRoot = resolve(packageDir, "../..");

let built: Promise<string> | undefined;

/**
 * The stockade binary: $STOCKADE_BIN, or built once per test process from ./cmd/stockade
 * (`go build`, which the build cache makes quick after the first time).
 */
export function stockadeBinary(): Promise<string> {
	const given = process.env.STOCKADE_BIN;
	if (given) return Promise.resolve(given);
	built ??= (async () => {
		const dir = await mkdtemp(join(tmpdir(), "stockade-bin-"));
		const bin = join(dir, "stockade");
		await run("go", ["build", "-o", bin, "./cmd/stockade"], { cwd: repoRoot, maxBuffer: 16 << 20 });
		process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
		return bin;
	})();
	return built;
}

/** A running `stockade serve`. */
export interface Stockade {
	/** Its base URL: http://127.0.0.1:PORT. */
	url: string;
	/** The secret of an admin key made with `stockade keys create`. */
	adminKey: string;
	/** The payment webhook's secret (`serve -webhook-secret-file`). */
	webhookSecret: string;
	/** What it has logged so far. */
	log(): string;
	/** Stops it (SIGTERM, then SIGKILL if it lingers) and removes its files. */
	stop(): Promise<void>;
}

/** Every serve this process started and has not stopped, with its folder: ended and removed with
 * the process, however it ends (a test runner's time-out, an interrupt), so that none outlives the
 * tests. */
const running = new Map<ChildProcess, string>();
process.on("exit", () => {
	for (const [child, dir] of running) {
		child.kill("SIGKILL");
		rmSync(dir, { recursive: true, force: true });
	}
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
	process.once(signal, () => process.exit(signal === "SIGINT" ? 130 : 143));
}

/** How long serve may take to say where it listens and to be ready: a cold start on a busy machine. */
const startTimeoutMs = 60_000;

/** Starts `stockade serve` with a fresh store; extra flags go after the defaults. */
export async function startStockade(extraArgs: readonly string[] = []): Promise<Stockade> {
	const bin = await stockadeBinary();
	const dir = await mkdtemp(join(tmpdir(), "stockade-ts-"));
	const store = `sqlite:${join(dir, "stockade.db")}`;
	const webhookSecret = randomBytes(32).toString("hex");
	await writeFile(join(dir, "webhook-secrets"), `${webhookSecret}\n`);
	const { stdout } = await run(bin, ["keys", "create", "-store", store, "-role", "admin", "-name", "admin"]);
	const adminKey = stdout.trim();

	const child = spawn(
		bin,
		[
			"serve",
			"-addr",
			"127.0.0.1:0",
			"-store",
			store,
			"-webhook-secret-file",
			join(dir, "webhook-secrets"),
			// The tests' webhook receivers listen on loopback.
			"-webhook-allow-private",
			...extraArgs,
		],
		{ stdio: ["ignore", "ignore", "pipe"] },
	);
	running.set(child, dir);
	let log = "";
	const exited = new Promise<void>((done) =>
		child.once("exit", () => {
			running.delete(child);
			done();
		}),
	);
	const url = await new Promise<string>((done, fail) => {
		const timer = setTimeout(() => fail(new Error(`serve did not say where it listens; log:\n${log}`)), startTimeoutMs);
		child.stderr?.setEncoding("utf8");
		child.stderr?.on("data", (chunk: string) => {
			log += chunk;
			const m = /msg=listening addr=(\S+)/.exec(log);
			if (m) {
				clearTimeout(timer);
				done(`http://${m[1]}`);
			}
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			fail(new Error(`serve exited (${code}) before listening; log:\n${log}`));
		});
	});
	const server: Stockade = {
		url,
		adminKey,
		webhookSecret,
		log: () => log,
		stop: async () => {
			await stop(child, exited);
			await rm(dir, { recursive: true, force: true });
		},
	};
	try {
		await waitFor(async () => (await fetch(`${url}/readyz`)).ok, {
			timeoutMs: startTimeoutMs,
			what: "serve's /readyz",
		});
	} catch (err) {
		await server.stop();
		throw new Error(`${(err as Error).message}; log:\n${log}`);
	}
	return server;
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	child.kill("SIGTERM");
	const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
	await exited;
	clearTimeout(timer);
}

/**
 * Waits until `check` holds (it may throw meanwhile: that counts as not yet), trying every
 * `intervalMs`, or fails after `timeoutMs`: a test waits for a state, never for a fixed time.
 */
export async function waitFor(
	check: () => boolean | Promise<boolean>,
	{ timeoutMs = 30_000, intervalMs = 50, what = "a condition" } = {},
): Promise<void> {
	const end = Date.now() + timeoutMs;
	let last: unknown;
	for (;;) {
		try {
			if (await check()) return;
		} catch (err) {
			last = err;
		}
		if (Date.now() > end) {
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ""}`);
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}
