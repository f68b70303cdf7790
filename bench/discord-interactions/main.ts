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
  type Round,
  report,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
} from "../ack.js";

const BURST = 200;
const TARGET_P99_MS = 250;
const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));

export type DiscordInteractionsAckResult = AckResult<"discord-interactions-ack"> & {
  /** The defer callbacks' figures, round by round. */
  callbacks: Round[];
  /** The machine's load average (1, 5, 15 min) at the end: the figures mean little without it. */
  loadAverage: number[];
};

/** Interactions whose endpoint did not answer 202 within Discord's 3 s count as failed. */
async function burst(fake: FakeDiscord, round: number, callbacks: Round[]): Promise<Round> {
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`http${round + 1}x${i}`));
  const sent: InjectedInteraction[] = await Promise.all(
    users.map((user, i) =>
      fake.sendCommand({
        name: "image",
        subcommand: "generate",
        options: { prompt: `a red fox number ${round}-${i}`, seed: i },
        user,
      }),
    ),
  );
  const answered = (i: InjectedInteraction) => fake.interaction(i.id)?.http;
  await fake
    .waitFor(() => sent.every((i) => answered(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const since = (i: InjectedInteraction, at: number | undefined) =>
    at === undefined ? [] : [at - fake.interaction(i.id)!.createdAt];
  const deferred = sent.flatMap((i) => since(i, fake.callbacks(i.id)[0]?.at));
  if (round >= 0) callbacks.push(roundFigures(deferred, BURST - deferred.length));
  const accepted = sent.flatMap((i) => (answered(i)?.status === 202 ? since(i, answered(i)!.at) : []));
  return roundFigures(accepted, BURST - accepted.length);
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
    return { ...result, callbacks, loadAverage: loadavg().map((l) => Math.round(l * 100) / 100) };
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
  report(result, "slash commands POSTed at once to /discord/interactions (time to the 202)");
  process.exitCode = result.pass ? 0 : 1;
}
