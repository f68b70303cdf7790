/**
 * The media API emulator in a process of its own, so its memory and CPU are not the bot's. Its
 * clock stands still until "go", so that the ten thousand jobs created beforehand all start at
 * once, and then runs `speed` times faster than the wall clock. Jobs compute their state from the
 * clock alone, so the next "go" starts the clock over and replays the very same jobs.
 *
 * Messages in: { type: "plan", plans: [{ kind, durationMs }] }, { type: "go", speed },
 * { type: "count" }. Out: { type: "ready", url, apiKey, imageMediaId }, { type: "planned" },
 * { type: "going", at }, { type: "count", statusReads, cpuMs, loopDelayP99Ms }.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type PlannedKind, startEmulator } from "../../test/fakes/media-api/index.js";

export type EmulatorMessage =
  | { type: "plan"; plans: { kind: PlannedKind; durationMs: number }[] }
  | { type: "go"; speed: number }
  | { type: "count" };

export type EmulatorReply =
  | { type: "ready"; url: string; apiKey: string; imageMediaId: string }
  | { type: "planned" }
  | { type: "going"; at: number }
  | {
      type: "count";
      statusReads: number;
      /** CPU of this process so far (ms). */
      cpuMs: number;
      /** Event-loop delay since the last "go" (ms): a lagging emulator answers late. */
      loopDelayP99Ms: number;
    };

const apiKey = "bench-key";
const frozenAt = Date.now();
let clock = { startedAt: Number.POSITIVE_INFINITY, speed: 1 };
const now = () =>
  Date.now() < clock.startedAt ? frozenAt : frozenAt + (Date.now() - clock.startedAt) * clock.speed;

const emulator = await startEmulator({
  now,
  accounts: [
    {
      apiKey,
      plan: "enterprise",
      creditsLimit: 1e9,
      quotas: { ai_actor_videos: "unlimited", ai_images: "unlimited", cinematic_videos: "unlimited" },
    },
  ],
});
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const send = (reply: EmulatorReply) => process.send?.(reply);
const STATUS_PATH =
  /^\/api\/(video\/[^/]+\/status|avatar\/jobs\/[^/]+\/status|image\/[^/]+|mockup\/[^/]+\/status|thumbnail\/[^/]+)$/;

process.on("message", (message: EmulatorMessage) => {
  switch (message.type) {
    case "plan":
      for (const { kind, durationMs } of message.plans) emulator.planNextJob(kind, { durationMs });
      send({ type: "planned" });
      return;
    case "go":
      clock = { startedAt: Date.now(), speed: message.speed };
      loopDelay.reset();
      send({ type: "going", at: clock.startedAt });
      return;
    case "count": {
      const cpu = process.cpuUsage();
      send({
        type: "count",
        statusReads: emulator.callsTo("GET", STATUS_PATH).length,
        cpuMs: (cpu.user + cpu.system) / 1000,
        loopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e4) / 100,
      });
    }
  }
});
process.on("disconnect", () => void emulator.close().finally(() => process.exit(0)));

send({
  type: "ready",
  url: emulator.url,
  apiKey,
  imageMediaId: emulator.seedMedia(apiKey, { contentType: "image/png", fileName: "product.png" }),
});
