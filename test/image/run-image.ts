/**
 * The built image, run as an operator runs it (called by .ci/image-check after the build):
 *
 *   node --import tsx test/image/run-image.ts <image> [podman's global options...]
 *
 * IMAGE_RUN_OPTIONS: options for every `podman run`, separated by spaces (limits, for instance).
 *
 * 1. With no configuration it stops at once with one `Cannot start:` line on stderr and exit code 1.
 * 2. Against the media API emulator, the fake Discord and the fake Slack (test/fakes), with the
 *    host's network, it answers GET /healthz and GET /readyz with 200.
 *    Its HEALTHCHECK passes, and node itself is PID 1.
 * 3. SIGTERM (what `docker stop` sends) ends it within 10 s, with exit code 0.
 * 4. Prints the image's size.
 *
 * Exits 1 when a check fails, after printing what the container said.
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { startFakeDiscord } from "../fakes/discord/index.js";
import { startEmulator } from "../fakes/media-api/index.js";
import { startFakeSlack } from "../fakes/slack/index.js";
import { freePort } from "../main-process.js";

const run = promisify(execFile);
const [image, ...globals] = process.argv.slice(2);
if (!image) {
  console.error("usage: run-image.ts <image> [podman's global options...]");
  process.exit(2);
}
const runOptions = (process.env.IMAGE_RUN_OPTIONS ?? "").split(" ").filter((o) => o !== "");
const podman = (...args: string[]) => run("podman", [...globals, ...args], { maxBuffer: 16 << 20 });
/** The docker stop grace: Docker sends SIGKILL this long after SIGTERM. */
const STOP_GRACE_MS = 10_000;

const failures: string[] = [];
function check(ok: boolean, what: string, detail = ""): void {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
  if (!ok) failures.push(what);
}

/** Runs the image to its end and returns its exit code and output. */
function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("podman", [...globals, "run", "--rm", ...runOptions, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

async function status(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

async function waitFor200(
  url: string,
  timeoutMs: number,
): Promise<{ status: number | undefined; ms: number }> {
  const start = performance.now();
  let last: number | undefined;
  while (performance.now() - start < timeoutMs) {
    last = await status(url);
    if (last === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { status: last, ms: Math.round(performance.now() - start) };
}

// 1. No configuration at all.
// No healthcheck timer: without systemd podman says so on its stderr, which is the container's here.
const bare = await runToEnd(["--network", "host", "--no-healthcheck", image]);
const bareLines = bare.stderr.split("\n").filter((line) => line.trim() !== "");
check(
  bare.code === 1 && bareLines.length === 1 && bareLines[0]!.startsWith("Cannot start:"),
  "without configuration: one `Cannot start:` line on stderr, exit code 1",
  `exit ${bare.code}, stderr ${JSON.stringify(bare.stderr.trim())}`,
);

// 2. Against the emulator and the fakes, on the host's network (their loopback addresses are the container's).
const emulator = await startEmulator({ timeScale: 0.05 });
const discord = await startFakeDiscord();
const slack = await startFakeSlack();
const port = await freePort();
const name = `media-bot-check-${randomBytes(4).toString("hex")}`;
const env: Record<string, string> = {
  MEDIA_API_URL: emulator.url,
  MEDIA_API_KEY: "test-key",
  MEDIA_API_KEY_TENANTS: "*",
  DISCORD_TOKEN: discord.token,
  DISCORD_REST_URL: discord.restUrl,
  DISCORD_GUILD_ID: discord.guild.id,
  SLACK_BOT_TOKEN: slack.botToken,
  SLACK_SIGNING_SECRET: slack.signingSecret,
  SLACK_API_URL: slack.apiUrl,
  PORT: String(port),
};
try {
  await podman(
    "run",
    ...runOptions,
    "--detach",
    "--name",
    name,
    "--network",
    "host",
    ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    image,
  );
  const base = `http://127.0.0.1:${port}`;
  const health = await waitFor200(`${base}/healthz`, 60_000);
  check(health.status === 200, "GET /healthz answers 200", `status ${health.status} after ${health.ms} ms`);
  const ready = await waitFor200(`${base}/readyz`, 60_000);
  check(ready.status === 200, "GET /readyz answers 200", `status ${ready.status} after ${ready.ms} ms`);
  // The image's HEALTHCHECK, run once as Docker runs it every 30 s (exit code 0: healthy).
  const healthcheck = await podman("healthcheck", "run", name).then(
    () => "healthy",
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`.trim(),
  );
  check(healthcheck === "healthy", "the image's HEALTHCHECK passes", healthcheck);
  const pid1 = (await podman("exec", name, "cat", "/proc/1/cmdline")).stdout.split("\0").join(" ").trim();
  check(pid1.startsWith("node "), "node itself is PID 1", pid1);

  // 3. SIGTERM, as `docker stop` sends it; `podman wait` returns the exit code once it has ended.
  const start = performance.now();
  await podman("kill", "--signal", "TERM", name);
  const waited = podman("wait", name);
  const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), STOP_GRACE_MS).unref());
  const ended = await Promise.race([waited, timer]);
  const ms = Math.round(performance.now() - start);
  check(
    ended !== "late" && ended.stdout.trim() === "0",
    `SIGTERM ends it within ${STOP_GRACE_MS / 1000} s, exit code 0`,
    ended === "late" ? "still running" : `exit ${ended.stdout.trim()} after ${ms} ms`,
  );
  if (failures.length > 0) {
    const logs = await podman("logs", name).catch((error: unknown) => ({
      stdout: String(error),
      stderr: "",
    }));
    console.log(`--- the container's output\n${logs.stdout}${logs.stderr}---`);
  }
} finally {
  await podman("rm", "--force", "--volumes", name).catch(() => undefined);
  await Promise.all([emulator.close(), discord.close(), slack.close()]);
}

// 4. The size, as `docker images` shows it.
const size = Number((await podman("image", "inspect", "--format", "{{.Size}}", image)).stdout.trim());
console.log(`image ${image}: ${(size / 1e6).toFixed(1)} MB`);

if (failures.length > 0) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
