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
import { type FakeDiscord, startFakeDiscord } from "../../test/fakes/discord/index.js";
import {
  type AckResult,
  BURST,
  breakdown,
  type Round,
  readTimings,
  report,
  runRounds,
  startProcess,
  stopProcess,
  TARGET_P99_MS,
} from "../ack.js";
import { discordCommandBurst, timedBurst } from "../bursts.js";

const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("./emulator-process.ts", import.meta.url));

export type { Round };
export type DiscordAckResult = AckResult<"discord-ack" | "discord-ack-clicks">;

/**
 * Interactions without a defer within Discord's 3 s count as failed (later ones are refused, so
 * they never arrive).
 */
const burst = (fake: FakeDiscord, round: number) => discordCommandBurst(fake, round, "bench");

/**
 * A burst of clicks: people who were not asked click Regenerate under one finished image at once
 * (each click starts a job of its own, so the work behind the acks is a command's).
 */
async function clickBurst(fake: FakeDiscord, round: number): Promise<Round> {
  const result = fake
    .messages()
    .flatMap((message) => regenerateButton(message).map((customId) => ({ message, customId })))[0];
  if (!result) throw new Error("no finished image with a Regenerate button to click");
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`clicker${round + 1}x${i}`));
  return timedBurst(
    fake,
    users.map((user) => fake.clickButton(result.message, result.customId, user)),
  );
}

function regenerateButton(message: { components?: unknown }): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      const component = value as { label?: unknown; custom_id?: unknown; components?: unknown };
      if (component.label === "Regenerate" && typeof component.custom_id === "string")
        found.push(component.custom_id);
      walk(component.components);
    }
  };
  walk(message.components);
  return found;
}

export async function run(rounds = 5): Promise<DiscordAckResult[]> {
  const fake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-discord-ack-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const timings = join(dir, "ack-timings.json");
  process.env.ACK_TIMINGS = timings;
  const bot = await startProcess<{ ready: boolean }>(BOT, [
    fake.restUrl,
    fake.token,
    fake.guild.id,
    emulator.info.url,
    dir,
  ]);
  try {
    const common = {
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      // Requests to Discord only: the emulator's calls are in its own process.
      calls: () => fake.calls.length,
    };
    const commands = await runRounds({
      ...common,
      name: "discord-ack",
      send: (round) => burst(fake, round),
    });
    const clicks = await runRounds({
      ...common,
      name: "discord-ack-clicks",
      send: (round) => clickBurst(fake, round),
    });
    await stopProcess(bot.child);
    const marks = readTimings(timings);
    return [
      { ...commands, breakdown: breakdown(commands.rounds, marks) },
      { ...clicks, breakdown: breakdown(clicks.rounds, marks) },
    ];
  } finally {
    await stopProcess(bot.child);
    await stopProcess(emulator.child);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [commands, clicks] = await run(Number(process.argv[2] ?? 5));
  report(commands!, "slash commands dispatched at once");
  report(clicks!, "clicks on Regenerate dispatched at once");
  process.exitCode = commands!.pass && clicks!.pass ? 0 : 1;
}
