/**
 * How fast the bot acknowledges a burst that arrives over HTTP interactions: 200 `/image generate`
 * interactions POSTed at once, signed, by the fake Discord to the bot's POST /discord/interactions
 * (DISCORD_PUBLIC_KEY mode, no gateway), as bench/discord-ack does over the gateway. Two times per
 * interaction, both on the fake's clock from the moment it sent the request: the first response
 * (the defer the user sees; Discord's 3 s deadline), and the end of the HTTP exchange (the answer
 * Discord waits for: the 200 whose body is the defer, or a 202 after a callback). The round
 * figures are the answers; the first responses' are printed beside them, with how many came in
 * the body rather than by callback.
 *
 * The floor: each round first sends the same burst through a second fake Discord to a bare server
 * that only checks the signature and answers a deferred reply in the body
 * (bench/floor/interactions-process.ts). The verdict is the bot's p99 over the floor's, target at
 * most 1.3 (issue 36); issue 23's 100 ms is reported beside it.
 *
 * The bot (with `npm start`'s Node flags), the floor and the emulator each run in a process of
 * their own, both fake Discords in this one.
 *
 *   npx tsx bench/discord-interactions/main.ts [rounds]   (default 5; writes bench/results/discord-interactions-ack.json)
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
import { startFlags } from "../../test/main-process.js";
import {
  type AckResult,
  BURST,
  type Round,
  report,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
} from "../ack.js";
import { copyCommands } from "../bursts.js";

const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));
const FLOOR = fileURLToPath(new URL("../floor/interactions-process.ts", import.meta.url));

export type DiscordInteractionsAckResult = AckResult<"discord-interactions-ack"> & {
  /** The first responses' (defers') figures, round by round. */
  callbacks: Round[];
  /** Of the measured rounds' first responses, how many came in the HTTP answer's body, and by callback. */
  via: { body: number; callback: number };
  /** 30 commands one after the other, after the bursts: the ack path without a queue. */
  oneAtATime: { callbacks: Round; accepted: Round };
};

const SEQUENTIAL = 30;
/** Issue 23: the answer in the HTTP body, about as fast as the gateway's acks (reported beside the floor's ratio). */
const TARGET_P99_MS = 100;

function command(fake: FakeDiscord, name: string, i: number): Promise<InjectedInteraction> {
  return fake.sendCommand({
    name: "image",
    subcommand: "generate",
    options: { prompt: `a red fox number ${name}-${i}`, seed: i },
    user: fake.addUser(`http${name}x${i}`),
  });
}

/** The figures of interactions sent: to the first response, and to the answer (200 or 202; any other fails). */
async function timesOf(
  fake: FakeDiscord,
  sent: InjectedInteraction[],
  via?: { body: number; callback: number },
) {
  const answered = (i: InjectedInteraction) => fake.interaction(i.id)?.http;
  await fake
    .waitFor(() => sent.every((i) => answered(i) !== undefined), DISCORD_LIMITS.firstResponseMs + 500)
    .catch(() => undefined);
  const since = (i: InjectedInteraction, at: number | undefined) =>
    at === undefined ? [] : [at - fake.interaction(i.id)!.createdAt];
  const deferred = sent.flatMap((i) => since(i, fake.callbacks(i.id)[0]?.at));
  const ok = (status: number | undefined) => status === 200 || status === 202;
  const accepted = sent.flatMap((i) => (ok(answered(i)?.status) ? since(i, answered(i)!.at) : []));
  if (via) {
    for (const i of sent) {
      const first = fake.callbacks(i.id)[0];
      if (first) via[first.via] += 1;
    }
  }
  return {
    callbacks: roundFigures(deferred, sent.length - deferred.length),
    accepted: roundFigures(accepted, sent.length - accepted.length),
  };
}

async function burst(
  fake: FakeDiscord,
  round: number,
  callbacks: Round[],
  via: { body: number; callback: number },
): Promise<Round> {
  const sent = await Promise.all(
    Array.from({ length: BURST }, (_, i) => command(fake, String(round + 1), i)),
  );
  const times = await timesOf(fake, sent, round >= 0 ? via : undefined);
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
  const bot = await startProcess<{ url: string }>(
    BOT,
    [fake.restUrl, fake.token, fake.guild.id, fake.publicKey, emulator.info.url, dir],
    startFlags(),
  );
  const floorFake = await startFakeDiscord();
  const floor = await startProcess<{ url: string }>(FLOOR, [floorFake.publicKey]);
  const callbacks: Round[] = [];
  const via = { body: 0, callback: 0 };
  try {
    await fake.setInteractionsEndpoint(bot.info.url);
    await floorFake.setInteractionsEndpoint(floor.info.url);
    await copyCommands(fake, floorFake);
    const result = await runRounds({
      name: "discord-interactions-ack",
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      send: (round) => burst(fake, round, callbacks, via),
      floor: (round) => burst(floorFake, round, [], { body: 0, callback: 0 }),
      calls: () => fake.calls.length,
    });
    const sequential = await oneAtATime(fake);
    return { ...result, callbacks, via, oneAtATime: sequential };
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
  const result = await run(Number(process.argv[2] ?? 5));
  for (const [i, r] of result.callbacks.entries()) {
    console.log(
      `round ${i + 1} first responses: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, failed ${r.failed}`,
    );
  }
  console.log(`first responses in the 200's body: ${result.via.body}, by callback: ${result.via.callback}`);
  const { callbacks, accepted } = result.oneAtATime;
  console.log(
    `one at a time (${SEQUENTIAL}): first response p50 ${callbacks.p50} ms, p99 ${callbacks.p99} ms; answer p50 ${accepted.p50} ms, p99 ${accepted.p99} ms`,
  );
  report(result, "slash commands POSTed at once to /discord/interactions (time to the answer)");
  process.exitCode = result.pass ? 0 : 1;
}
