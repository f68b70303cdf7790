import { afterEach, expect, it } from "vitest";
import { eventually } from "../fake-adapter.js";
import { Harness, text } from "./harness.js";

/** The graceful stop (SIGTERM): what people see while the bot goes down, and what it finishes. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it("finishes a command under way, answers new ones 'restarting' without calling the service, and hands the job over", async () => {
  h = await Harness.start();
  // A slow creation call: the command is between its paid call and tracking the job when the stop begins.
  h.emu.inject({ method: "POST", path: "/api/image/generate", delayMs: 300 });
  const underWay = h.startJob("image.generate", { prompt: "a fox at dusk" });
  await eventually(() => h?.creations("/api/image/generate").length === 1 || undefined);
  const stopping = h.bot.stop({ deadlineMs: 5_000 });

  await h.command("image.generate", { prompt: "too late" });
  const told = h.lastEphemeral();
  expect(told.title).toBe("The bot is restarting");
  expect(text(told)).toMatch(/try again in a moment/);
  expect(h.creations("/api/image/generate")).toHaveLength(1);

  const ref = await underWay;
  await stopping;
  // The job it started is recorded and handed back: the next process delivers it.
  await h.restart();
  expect((await h.finished(ref)).tone).toBe("success");
  expect(h.creations("/api/image/generate")).toHaveLength(1);
});
