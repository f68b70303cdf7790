/**
 * The media API emulator in a process of its own, as the media service is: the pictures it
 * renders for each result (tens of milliseconds of CPU each) are then not the bot's event loop's
 * time, which in one process held the queue's next starts while the results were downloaded.
 *
 * Messages in: { type: "plan", count, durationMs } (that many image jobs), { type: "creations" }.
 * Out: { type: "ready", url }, { type: "planned" }, { type: "creations", calls } (each image
 * creation call's prompt and when the emulator received it, in that order).
 */
import { startEmulator } from "../../test/fakes/media-api/index.js";

export type EmulatorMessage = { type: "plan"; count: number; durationMs: number } | { type: "creations" };

export type EmulatorReply =
  | { type: "ready"; url: string }
  | { type: "planned" }
  | { type: "creations"; calls: { prompt: string; at: number }[] };

// The harness's own emulator's clock: jobs take the duration planned, the rest runs 500 times faster.
const emulator = await startEmulator({ timeScale: 0.002 });
const send = (reply: EmulatorReply) => process.send?.(reply);

process.on("message", (message: EmulatorMessage) => {
  switch (message.type) {
    case "plan":
      for (let n = 0; n < message.count; n++)
        emulator.planNextJob("image", { durationMs: message.durationMs });
      send({ type: "planned" });
      return;
    case "creations":
      send({
        type: "creations",
        calls: emulator.callsTo("POST", "/api/image/generate").map((call) => ({
          prompt: (call.json as { prompt: string }).prompt,
          at: call.at,
        })),
      });
  }
});
process.on("disconnect", () => void emulator.close().finally(() => process.exit(0)));

send({ type: "ready", url: emulator.url });
