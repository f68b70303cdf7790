import { randomFillSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { REST, Routes } from "discord.js";
import { createLogger } from "../../src/core/base/log.js";
import { DiscordWorld, ended } from "../../test/discord/harness.js";
import { startFakeDiscord } from "../../test/fakes/discord/index.js";

/**
 * The log bytes a refused 20 MiB Discord upload costs (issue 38): Discord answers 413 with JSON
 * code 40005 and discord.js throws a DiscordAPIError that holds the whole request, file included.
 *
 *   - one refusal: the real discord.js REST client posts the file to the fake Discord, which
 *     refuses it; the error is logged once as the job engine logs a failed delivery;
 *   - one job: the whole bot (real discord.js client, engine, sqlite) delivers a 20 MiB video
 *     whose upload Discord refuses `--refusals` times before taking it; every log line the bot
 *     writes at info from the first refusal to the delivery is counted. A bot that takes 40005
 *     as final (no retry) ends the job after one: run it with `--refusals 1`, or a later refusal
 *     meets whatever it posts instead.
 *
 *   npm run bench -- log-volume [--refusals 5] [--out bench/results]
 */

const { values } = parseArgs({
  options: {
    refusals: { type: "string", default: "5" },
    out: { type: "string", default: new URL("../results", import.meta.url).pathname },
  },
});
const refusals = Number(values.refusals);
const MiB = 1024 * 1024;
const FILE_BYTES = 20 * MiB;
const TOO_LARGE = { status: 413, code: 40005, message: "Request entity too large" };

interface Tally {
  bytes: number;
  lines: number;
  longest: number;
}

function counting(): { tally: Tally; destination: Writable } {
  const tally: Tally = { bytes: 0, lines: 0, longest: 0 };
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const bytes = Buffer.byteLength(chunk);
      tally.bytes += bytes;
      tally.lines += 1;
      tally.longest = Math.max(tally.longest, bytes);
      done();
    },
  });
  return { tally, destination };
}

async function oneRefusal() {
  const fake = await startFakeDiscord({ attachmentSizeLimit: 50 * MiB });
  try {
    const rest = new REST({ api: fake.restUrl, retries: 0 }).setToken(fake.token);
    fake.fail({ method: "POST", path: /^\/channels\/\d+\/messages$/, ...TOO_LARGE });
    const error = await rest
      .post(Routes.channelMessages(fake.channel.id), {
        body: { content: "your video" },
        files: [
          { name: "video.mp4", contentType: "video/mp4", data: randomFillSync(Buffer.alloc(FILE_BYTES)) },
        ],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (!error) throw new Error("the fake took the upload");
    const { tally, destination } = counting();
    const logger = createLogger({ level: "info", destination });
    const started = performance.now();
    logger
      .child({ component: "jobs" })
      .warn({ err: error, jobId: "j_1", attempts: 1, retryInMs: 5000 }, "delivery failed; will retry");
    return { ...tally, ms: Math.round(performance.now() - started) };
  } finally {
    await fake.close();
  }
}

async function oneJob() {
  const { tally, destination } = counting();
  const logger = createLogger({ level: "info", destination });
  const world = await DiscordWorld.start({
    fake: { attachmentSizeLimit: 50 * MiB },
    emulator: { largeVideoBytes: FILE_BYTES },
    logger,
  });
  try {
    world.emu.planNextJob("video", { large: true, durationMs: 400 });
    const interaction = await world.command({
      name: "video",
      subcommand: "avatar",
      options: { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "Hi" },
    });
    await world.answer(interaction);
    const before = { ...tally };
    const from = world.fake.calls.length;
    const refusedCalls = () => world.fake.calls.slice(from).filter((c) => c.status === 413);
    const refused = () => refusedCalls().filter((c) => c.files.length > 0).length;
    const over = () => {
      const message = world.fake.original(interaction.id);
      return message !== undefined && ended(message);
    };
    // One refusal armed at a time (a progress edit may take it), until `refusals` uploads were
    // refused, or the job ended without trying again (a bot that takes 40005 as final).
    while (refused() < refusals && !over()) {
      const taken = refusedCalls().length;
      world.fake.fail({ method: "PATCH", path: /^\/webhooks\/\d+\/[^/]+\/messages\/[^/]+$/, ...TOO_LARGE });
      await world.until(() => refusedCalls().length > taken || over(), 10 * 60_000);
    }
    await world.jobMessage(interaction);
    return {
      refusedUploads: refused(),
      bytes: tally.bytes - before.bytes,
      lines: tally.lines - before.lines,
      longest: tally.longest,
    };
  } finally {
    await world.close();
  }
}

const report = { fileBytes: FILE_BYTES, oneRefusal: await oneRefusal(), oneJob: await oneJob() };
console.log(JSON.stringify(report, null, 2));
writeFileSync(join(values.out, "log-volume.json"), `${JSON.stringify(report, null, 2)}\n`);
