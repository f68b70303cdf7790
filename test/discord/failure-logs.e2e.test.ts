import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/core/base/log.js";
import { LINE_MAX_BYTES } from "../../src/core/base/log-bounds.js";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/**
 * What the bot's log says while Discord keeps failing a job's delivery: one line when it starts,
 * one with the count when it ends, not one per retry.
 */

const lines: string[] = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
let world: DiscordWorld;
discordWorldPerFile(
  (started) => {
    world = started;
  },
  { logger: createLogger({ level: "info", destination }) },
);

const WEBHOOK_MESSAGE = /^\/webhooks\/\d+\/[^/]+\/messages\/[^/]+$/;

describe("a delivery Discord fails again and again", () => {
  it("is logged once when it starts and once with the count when it goes through", async () => {
    world.emu.planNextJob("image", { durationMs: 300 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "fox" },
    });
    await world.answer(interaction);
    const from = world.fake.calls.length;
    const logged = lines.length;
    const failedUploads = () =>
      world.fake.calls.slice(from).filter((c) => c.status === 500 && c.files.length > 0).length;
    // One request refused at a time (discord.js tries it 4 times on a 5xx), until 3 deliveries
    // were: a progress edit may take a turn.
    while (failedUploads() < 3 * 4) {
      const refused = world.fake.calls.slice(from).filter((c) => c.status === 500).length;
      world.fake.fail({ method: "PATCH", path: WEBHOOK_MESSAGE, status: 500, times: 4 });
      await world.until(
        () => world.fake.calls.slice(from).filter((c) => c.status === 500).length >= refused + 4,
      );
    }
    const done = await world.jobMessage(interaction);
    expect(done.attachments).toHaveLength(1);
    // Written once the delivery is on record, just after the post.
    await world.until(() => lines.slice(logged).some((l) => l.includes('"delivery retries over"')));

    const written = lines.slice(logged);
    for (const line of written) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_MAX_BYTES);
    const jobs = written.map((l) => JSON.parse(l)).filter((l) => l.component === "jobs");
    const failed = jobs.filter((l) => l.msg === "delivery failed; will retry");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      failures: 1,
      err: { type: "HTTPError", status: 500, method: "PATCH" },
    });
    expect(jobs.filter((l) => l.msg === "delivery retries over")).toEqual([
      expect.objectContaining({ outcome: "delivered", failures: 3 }),
    ]);
    // Progress edits that met the outage are told once as well.
    expect(jobs.filter((l) => l.msg === "progress edit failed").length).toBeLessThanOrEqual(1);
  });
});
