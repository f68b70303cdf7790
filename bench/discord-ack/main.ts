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
 * The floor: each round first sends the same burst through a second fake Discord to discord.js's
 * own client with a handler that only defers (bench/floor/gateway-process.ts); the verdict is the
 * bot's p99 over the floor's, target at most 1.3 (issue 36).
 *
 * The bot (with `npm start`'s Node flags), the floor, the emulator and the fake Discords each run
 * in a process of their own (both fakes in this one), so that only the bot's event loop is measured.
 *
 *   npx tsx bench/discord-ack/main.ts [rounds]      (default 5; prints and writes bench/results/discord-ack.json)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { APIMessage } from "discord-api-types/v10";
import { type FakeDiscord, startFakeDiscord } from "../../test/fakes/discord/index.js";
import { startFlags } from "../../test/main-process.js";
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
import { copyCommands, discordCommandBurst, timedBurst } from "../bursts.js";

const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("./emulator-process.ts", import.meta.url));
const FLOOR = fileURLToPath(new URL("../floor/gateway-process.ts", import.meta.url));

export type { Round };
export type DiscordAckResult = AckResult<"discord-ack" | "discord-ack-clicks">;

/**
 * A burst of clicks: people who were not asked click Regenerate under one finished image at once
 * (each click starts a job of its own, so the work behind the acks is a command's).
 */
function clickBurst(fake: FakeDiscord, round: number, target: Clickable): Promise<Round> {
  const users = Array.from({ length: BURST }, (_, i) => fake.addUser(`clicker${round + 1}x${i}`));
  return timedBurst(
    fake,
    users.map((user) => fake.clickButton(target.message, target.customId, user)),
  );
}

interface Clickable {
  message: APIMessage;
  customId: string;
}

/** The bot's first finished image with its Regenerate button. */
function finishedImage(fake: FakeDiscord): Clickable {
  const found = fake
    .messages()
    .flatMap((message) => regenerateButton(message).map((customId) => ({ message, customId })))[0];
  if (!found) throw new Error("no finished image with a Regenerate button to click");
  return found;
}

/**
 * The same message posted in the floor's fake Discord by its bot, so that the floor's clicks carry
 * what the bot's do (the embeds and buttons; the uploads' attachments aside).
 */
async function copyMessage(floorFake: FakeDiscord, message: APIMessage): Promise<APIMessage> {
  const response = await fetch(`${floorFake.restUrl}/v10/channels/${floorFake.channel.id}/messages`, {
    method: "POST",
    headers: { authorization: `Bot ${floorFake.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      content: message.content,
      embeds: message.embeds.map(
        ({ image: _image, thumbnail: _thumbnail, video: _video, ...embed }) => embed,
      ),
      components: message.components,
    }),
  });
  if (!response.ok) throw new Error(`the floor's message: ${response.status} ${await response.text()}`);
  return (await response.json()) as APIMessage;
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
  const floorFake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-discord-ack-"));
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const timings = join(dir, "ack-timings.json");
  process.env.ACK_TIMINGS = timings;
  const bot = await startProcess<{ ready: boolean }>(
    BOT,
    [fake.restUrl, fake.token, fake.guild.id, emulator.info.url, dir],
    startFlags(),
  );
  const floor = await startProcess<{ ready: boolean }>(FLOOR, [floorFake.restUrl, floorFake.token]);
  await copyCommands(fake, floorFake);
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
      send: (round) => discordCommandBurst(fake, round, "bench"),
      floor: (round) => discordCommandBurst(floorFake, round, "floor"),
    });
    const target = finishedImage(fake);
    const floorTarget = { message: await copyMessage(floorFake, target.message), customId: target.customId };
    const clicks = await runRounds({
      ...common,
      name: "discord-ack-clicks",
      send: (round) => clickBurst(fake, round, target),
      floor: (round) => clickBurst(floorFake, round, floorTarget),
    });
    await stopProcess(bot.child);
    const marks = readTimings(timings);
    return [
      { ...commands, breakdown: breakdown(commands.rounds, marks) },
      { ...clicks, breakdown: breakdown(clicks.rounds, marks) },
    ];
  } finally {
    await stopProcess(bot.child);
    await stopProcess(floor.child);
    await stopProcess(emulator.child);
    await fake.close();
    await floorFake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [commands, clicks] = await run(Number(process.argv[2] ?? 5));
  report(commands!, "slash commands dispatched at once");
  report(clicks!, "clicks on Regenerate dispatched at once");
  process.exitCode = commands!.pass && clicks!.pass ? 0 : 1;
}
