/**
 * How fast the Discord side acknowledges a burst: 200 `/image generate` interactions dispatched
 * at once through the fake gateway to the real discord.js client, timed from the dispatch to
 * the defer callback the fake receives (both on the fake's clock). Discord gives up after 3 s;
 * the target is p99 < 250 ms. Behind the defers the whole bot works for real (validation,
 * creation calls at the emulator, job messages, polling, uploads), so the defers compete with
 * that work for the event loop, as they would in production. Each command comes from a person of
 * its own (a server at once, not one person typing 200 commands); rounds start once the previous
 * round's work has drained, and the figures are medians over rounds (bench/ack.ts).
 *
 * The bot, the emulator and the fake Discord each run in a process of their own, so that only the
 * bot's event loop is measured.
 *
 *   npx tsx bench/discord-ack/main.ts [rounds]      (default 5; prints and writes bench/results/discord-ack.json)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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
const EMULATOR = fileURLToPath(new URL("./emulator-process.ts", import.meta.url));

export type { Round };
export type DiscordAckResult = AckResult<"discord-ack">;

/**
 * Interactions without a defer within Discord's 3 s count as failed (later ones are refused, so
 * they never arrive).
 */
async function burst(fake: FakeDiscord, round: number): Promise<Round> {
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`bench${round + 1}x${i}`));
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
  const deferredAt = (i: InjectedInteraction) => fake.callbacks(i.id)[0]?.at;
  await fake
    .waitFor(() => sent.every((i) => deferredAt(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const timed = sent.flatMap((i) => {
    const at = deferredAt(i);
    return at === undefined ? [] : [at - fake.interaction(i.id)!.createdAt];
  });
  return roundFigures(timed, BURST - timed.length);
}

export async function run(rounds = 5): Promise<DiscordAckResult> {
  const fake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-discord-ack-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const bot = await startProcess<{ ready: boolean }>(BOT, [
    fake.restUrl,
    fake.token,
    fake.guild.id,
    emulator.info.url,
    dir,
  ]);
  try {
    return await runRounds({
      name: "discord-ack",
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      send: (round) => burst(fake, round),
      // Requests to Discord only: the emulator's calls are in its own process.
      calls: () => fake.calls.length,
    });
  } finally {
    await stopProcess(bot.child);
    await stopProcess(emulator.child);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run(Number(process.argv[2] ?? 5));
  report(result, "slash commands dispatched at once");
  process.exitCode = result.pass ? 0 : 1;
}
