/**
 * Loaded into the bot's process by the ack benchmarks (`node --import`), without touching the
 * bot: it notes when each request of a burst reached the bot and when its ack left, through
 * Node's diagnostics channels, and the bot's event-loop delay, and writes them to the file named
 * by ACK_TIMINGS when the process exits. Times are epoch milliseconds with a fraction
 * (performance.timeOrigin + performance.now()), comparable across the bench's processes.
 *
 * - Slack (HTTP): `accepted` when the bot's server accepted the request's connection, `received`
 *   when it starts on the request (its headers parsed), `answered` when the response has been
 *   handed to the socket. Requests are named by their x-bench-id header.
 * - Discord (gateway): `received` when the gateway packet reached discord.js (the bench's bot
 *   process calls `noteGateway`), `answered` when the interaction callback request was created.
 *   Interactions are named by their id.
 *
 * With ACK_PROFILE=<file>, it also profiles the process's CPU throughout and writes there, at
 * exit, the samples taken during the bursts alone (from a burst's first mark to its last, marks
 * more than 200 ms apart making two bursts): the bot's work on the ack path, without the jobs
 * that follow (`tsx bench/profile-top.ts <file>`).
 */
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface AckTimings {
  marks: Record<string, { accepted?: number; received?: number; answered?: number }>;
  /** The bot's event-loop delay over the whole run, ms. */
  loopDelay: { p50: number; p99: number; max: number };
}

const marks: AckTimings["marks"] = {};
const now = () => performance.timeOrigin + performance.now();

export function mark(id: string, what: "accepted" | "received" | "answered", at = now()): void {
  marks[id] ??= {};
  marks[id][what] ??= at;
}

interface ServerMessage {
  request: { headers: Record<string, string | string[] | undefined>; socket: object };
}

/** When the bot's server accepted each connection (libuv accepts one per turn of the loop). */
const acceptedAt = new WeakMap<object, number>();
subscribe("net.server.socket", (message) => {
  acceptedAt.set((message as { socket: object }).socket, now());
});
subscribe("http.server.request.start", (message) => {
  const { request } = message as ServerMessage;
  const id = request.headers["x-bench-id"];
  if (typeof id !== "string") return;
  mark(id, "received");
  const accepted = acceptedAt.get(request.socket);
  if (accepted !== undefined) mark(id, "accepted", accepted);
});
subscribe("http.server.response.finish", (message) => {
  const id = (message as ServerMessage).request.headers["x-bench-id"];
  if (typeof id === "string") mark(id, "answered");
});
subscribe("undici:request:create", (message) => {
  const path = (message as { request: { path: string } }).request.path;
  const id = /\/interactions\/(\d+)\/[^/]+\/callback/.exec(path)?.[1];
  if (id) mark(id, "answered");
});

/**
 * ACK_PROFILE (see the header). V8 stamps samples in microseconds of the monotonic clock that
 * process.hrtime reads; marks are epoch milliseconds, related to it by one pair of readings.
 */
const profileFile = process.env.ACK_PROFILE;
const profiler = profileFile ? new Session() : undefined;
const clocks = { epochMs: now(), monotonicUs: Number(process.hrtime.bigint() / 1000n) };
if (profiler) {
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 200 });
  await profiler.post("Profiler.start");
}

interface Profile {
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The bursts: marks within 200 ms of each other, as monotonic microseconds. */
function bursts(): [number, number][] {
  const times = Object.values(marks)
    .flatMap((m) => [m.accepted, m.received, m.answered])
    .filter((t): t is number => t !== undefined)
    .sort((a, b) => a - b);
  const windows: [number, number][] = [];
  for (const t of times) {
    const last = windows.at(-1);
    if (last && t - last[1] <= 200) last[1] = t;
    else windows.push([t, t]);
  }
  const toUs = (ms: number) => clocks.monotonicUs + (ms - clocks.epochMs) * 1000;
  return windows.map(([from, to]) => [toUs(from), toUs(to)]);
}

/** The samples taken inside the windows, each with the time it stood for, the rest left out. */
function within(profile: Profile, windows: [number, number][]): Profile {
  const samples: number[] = [];
  const timeDeltas: number[] = [0];
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    const lasted = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some(([from, to]) => at >= from && at <= to)) continue;
    samples.push(profile.samples[i]!);
    timeDeltas.push(lasted);
  }
  return { ...profile, samples, timeDeltas };
}

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const file = process.env.ACK_TIMINGS;
process.on("exit", () => {
  if (!file) return;
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const timings: AckTimings = {
    marks,
    loopDelay: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
  };
  writeFileSync(file, JSON.stringify(timings));
});
if (profiler && profileFile) {
  // Stopped before the exit, whose handlers cannot wait for the profile.
  process.stdin.once("end", () => {
    void profiler.post("Profiler.stop").then(({ profile }) => {
      writeFileSync(profileFile, JSON.stringify(within(profile as Profile, bursts())));
    });
  });
}
