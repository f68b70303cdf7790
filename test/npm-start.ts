import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { FakeDiscord } from "./fakes/discord/index.js";
import type { Emulator } from "./fakes/media-api/index.js";
import type { FakeSlack } from "./fakes/slack/index.js";

/**
 * `npm start` as a newcomer runs it: the real entry point in its own process, configured by env.
 * What the main*.test.ts files share; each stops what its tests started after every test (`stopStarted`).
 */

/**
 * Bounds for a bot started through tsx, which takes 3-6 s on a quiet machine and many times that
 * beside other work (the suite runs three files at a time): one awaited condition, and one test.
 * Only a start or an answer that never comes waits this long; a passing test never does.
 */
export const WAIT_MS = 60_000;
export const TEST_MS = 180_000;

export const root = fileURLToPath(new URL("..", import.meta.url));
export const started: {
  child?: ChildProcess;
  emu?: Emulator;
  fake?: FakeSlack | FakeDiscord;
  dir?: string;
  server?: Server;
}[] = [];

export function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    // PORT 0 (any free port) unless a test names one: the one HTTP server opens on every start.
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, output, exited };
}

/** The port the bot's HTTP server took, from its start-up log line. */
export function httpPort(stdout: string): number | undefined {
  const line = stdout.split("\n").find((l) => l.includes("serving /healthz"));
  return line ? (JSON.parse(line) as { port: number }).port : undefined;
}

export async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

/** Whether something answers HTTP at `url` (false when the connection is refused). */
export async function answers(url: string): Promise<boolean> {
  return fetch(url).then(
    async (res) => {
      await res.body?.cancel();
      return true;
    },
    () => false,
  );
}

/** A port another process holds on every interface, as a second bot or a dev server would. */
export async function takenPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  started.push({ server });
  return (server.address() as { port: number }).port;
}

/** A port that takes connections and never answers on them (a hung proxy, a wrong service). */
export async function silentPort(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  started.push({ server });
  return (server.address() as { port: number }).port;
}

/** The value of one series in Prometheus' text format (0 when absent). */
export function sample(metrics: string, series: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

export async function stopStarted(): Promise<void> {
  for (const world of started.splice(0)) {
    world.child?.kill("SIGKILL");
    await world.emu?.close();
    await world.fake?.close();
    await new Promise((resolve) => (world.server ? world.server.close(resolve) : resolve(undefined)));
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  }
}

/** Runs the bot until it exits (with a usable key path, so the credential under test decides). */
export async function failedStart(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "main-"));
  const { child, output, exited } = run({
    SECRETS_KEY: "7f".repeat(32),
    STORE_URL: `sqlite://${join(dir, "bot.sqlite")}`,
    ...env,
  });
  started.push({ child, dir });
  const code = await exited;
  return { code, ...output };
}

/** One line on stderr, no stack, no secret. */
export function expectOneLine(stderr: string, pattern: RegExp, ...secrets: string[]) {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
  for (const secret of secrets) expect(stderr).not.toContain(secret);
}
