/**
 * How fast the bot acknowledges a burst that arrives over HTTP interactions: 200 `/image generate`
 * interactions POSTed at once, signed, by the fake Discord to the bot's POST /discord/interactions
 * (DISCORD_PUBLIC_KEY mode, no gateway), as bench/discord-ack does over the gateway. Two times per
 * interaction, both on the fake's clock from the moment it sent the request: the defer callback
 * (the first response the user sees; Discord's 3 s deadline) and the end of the HTTP exchange
 * (the 202 that follows the callback, what Discord waits for). The round figures are the 202s;
 * the callbacks' are printed beside them. Target p99 < 250 ms, as over the gateway.
 *
 * The bot, the emulator and the fake Discord each run in a process of their own.
 *
 *   npx tsx bench/discord-interactions/main.ts [rounds]   (default 5; writes bench/results/discord-interactions-ack.json)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DISCORD_LIMITS } from "../../src/discord/limits.js";
import {
  type FakeDiscord,
  type InjectedInteraction,
  startFakeDiscord,
} from "../../test/fakes/discord/index.js";
import {
  type AckResult,
  BURST,
  type Round,
  report,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
  TARGET_P99_MS,
} from "../ack.js";

const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));

export type DiscordInteractionsAckResult = AckResult<"discord-interactions-ack"> & {
  /** The defer callbacks' figures, round by round. */
  callbacks: Round[];
  /** 30 commands one after the other, after the bursts: the ack path without a queue. */
  oneAtATime: { callbacks: Round; accepted: Round };
  /** The machine's load average (1, 5, 15 min) at the end: the figures mean little without it. */
  loadAverage: number[];
};

const SEQUENTIAL = 30;

function command(fake: FakeDiscord, name: string, i: number): Promise<InjectedInteraction> {
  return fake.sendCommand({
    name: "image",
    subcommand: "generate",
    options: { prompt: `a red fox number ${name}-${i}`, seed: i },
    user: fake.addUser(`http${name}x${i}`),
  });
}

/** The figures of interactions sent: to the defer callback, and to the 202 (interactions answered otherwise fail). */
async function timesOf(fake: FakeDiscord, sent: InjectedInteraction[]) {
  const answered = (i: InjectedInteraction) => fake.interaction(i.id)?.http;
  await fake
    .waitFor(() => sent.every((i) => answered(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const since = (i: InjectedInteraction, at: number | undefined) =>
    at === undefined ? [] : [at - fake.interaction(i.id)!.createdAt];
  const deferred = sent.flatMap((i) => since(i, fake.callbacks(i.id)[0]?.at));
  const accepted = sent.flatMap((i) => (answered(i)?.status === 202 ? since(i, answered(i)!.at) : []));
  return {
    callbacks: roundFigures(deferred, sent.length - deferred.length),
    accepted: roundFigures(accepted, sent.length - accepted.length),
  };
}

async function burst(fake: FakeDiscord, round: number, callbacks: Round[]): Promise<Round> {
  const sent = await Promise.all(
    Array.from({ length: BURST }, (_, i) => command(fake, String(round + 1), i)),
  );
  const times = await timesOf(fake, sent);
  if (round >= 0) callbacks.push(times.callbacks);
  return times.accepted;
}

async function oneAtATime(fake: FakeDiscord) {
  const sent: InjectedInteraction[] = [];
  for (let i = 0; i < SEQUENTIAL; i += 1) {
    const interaction = await command(fake, "seq", i);
    await fake.waitFor(() => fake.interaction(interaction.id)?.http, DISCORD_LIMITS.firstResponseMs + 500);
    sent.push(interaction);
  }
  return timesOf(fake, sent);
}

export async function run(rounds = 5): Promise<DiscordInteractionsAckResult> {
  const fake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-discord-interactions-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const bot = await startProcess<{ url: string }>(BOT, [
    fake.restUrl,
    fake.token,
    fake.guild.id,
    fake.publicKey,
    emulator.info.url,
    dir,
  ]);
  const callbacks: Round[] = [];
  try {
    await fake.setInteractionsEndpoint(bot.info.url);
    const result = await runRounds({
      name: "discord-interactions-ack",
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      send: (round) => burst(fake, round, callbacks),
      calls: () => fake.calls.length,
    });
    const sequential = await oneAtATime(fake);
    return {
      ...result,
      callbacks,
      oneAtATime: sequential,
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    };
  } finally {
    await stopProcess(bot.child);
    await stopProcess(emulator.child);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run(Number(process.argv[2] ?? 5));
  for (const [i, r] of result.callbacks.entries()) {
    console.log(
      `round ${i + 1} defer callbacks: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, failed ${r.failed}`,
    );
  }
  const { callbacks, accepted } = result.oneAtATime;
  console.log(
    `one at a time (${SEQUENTIAL}): defer callback p50 ${callbacks.p50} ms, p99 ${callbacks.p99} ms; 202 p50 ${accepted.p50} ms, p99 ${accepted.p99} ms`,
  );
  report(result, "slash commands POSTed at once to /discord/interactions (time to the 202)");
  process.exitCode = result.pass ? 0 : 1;
}
