/**
 * A command's acknowledgement with budgets set for its tenant, on both platforms: bursts of 200
 * `image generate` commands at once, each from a person of its own, as bench/slack-ack and
 * bench/discord-ack send them (the same bot processes: test/slack/bot-process.ts over HTTP,
 * bench/discord-ack/bot-process.ts over the gateway, each on a sqlite file of its own), into a
 * tenant with an `everyone` credit budget too large to refuse and an `each` jobs budget. The
 * budget check runs after the ack, in the work behind it: this measures that it does not hold the
 * ack up. The same bursts without any budget run alongside (`none`), in a bot of their own.
 * Warm-up burst, then `rounds` measured ones, each once the previous one's work has drained; the
 * figures are medians over the rounds (bench/ack.ts).
 *
 * The budgets are written into the bot's sqlite file before its process starts, as the budget
 * command saves them; after the last round the tenant's book is read back to show that every
 * start went through the budget check (its jobs counted, no reservation left held).
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { keyIdOf } from "../../src/core/spend/readings.js";
import type { TenantRef } from "../../src/core/tenancy/tenancy.js";
import { openStores } from "../../src/store/index.js";
import { startFakeDiscord } from "../../test/fakes/discord/index.js";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { startFakeSlack } from "../../test/fakes/slack/index.js";
import {
  type AckResult,
  BURST,
  type Round,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
} from "../ack.js";
import { discordCommandBurst, HTTP_BURST_SENDER, signedSlackRequest } from "../bursts.js";

const SLACK_BOT = fileURLToPath(new URL("../../test/slack/bot-process.ts", import.meta.url));
const DISCORD_BOT = fileURLToPath(new URL("../discord-ack/bot-process.ts", import.meta.url));
const EMULATOR = fileURLToPath(new URL("../discord-ack/emulator-process.ts", import.meta.url));

/** This benchmark's target: the budget check must leave the ack well under Slack's and Discord's 3 s. */
export const SPEND_TARGET_P99_MS = 150;

export type Budgets = "budgets" | "none";

export interface SpendAck {
  platform: "slack" | "discord";
  budgets: Budgets;
  result: AckResult;
  /** The tenant's book after the last round: jobs the budgets counted, reservations left held. */
  booked?: { jobs: number; held: number };
}

/** Writes the tenant's budgets into the bot's store, as the budget command saves them. */
async function seedBudgets(dir: string, tenant: TenantRef): Promise<void> {
  const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
  try {
    await stores.spend.changeBudgets(tenant, () => [
      { scope: "everyone", id: "", unit: "credits", limit: 10_000_000 },
      { scope: "user", id: "*", unit: "jobs", limit: 100 },
    ]);
  } finally {
    await stores.close();
  }
}

async function bookOf(dir: string, tenant: TenantRef): Promise<{ jobs: number; held: number }> {
  const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
  try {
    const period = (await stores.spend.period(keyIdOf("test-key"))) ?? "open";
    const book = { tenant, period };
    const tallies = await stores.spend.tallies(book);
    return { jobs: tallies["everyone|jobs"] ?? 0, held: await stores.spend.holds(book) };
  } finally {
    await stores.close();
  }
}

export async function slackAck(budgets: Budgets, rounds: number): Promise<SpendAck> {
  const fake = await startFakeSlack();
  const emulator = await startEmulator({ timeScale: 0.01 });
  emulator.account("test-key").creditsLimit = 1_000_000_000;
  const dir = mkdtempSync(join(tmpdir(), "bench-spend-slack-"));
  const tenant: TenantRef = { platform: "slack", tenantId: fake.teamId };
  if (budgets === "budgets") await seedBudgets(dir, tenant);
  const bot = await startProcess<{ eventsUrl: string }>(
    SLACK_BOT,
    [fake.apiUrl, fake.botToken, fake.signingSecret, emulator.url, dir],
    ["--expose-gc"],
  );
  const sender = new Worker(HTTP_BURST_SENDER, { eval: true });
  let sequence = 0;
  const signed = (text: string, user: string) => {
    const payload = { ...fake.payloads.slashCommand({ text }).payload, user_id: user, user_name: user };
    const body = new URLSearchParams(payload).toString();
    sequence += 1;
    return signedSlackRequest(fake.signingSecret, `r${sequence}`, body);
  };
  const burst = async (round: number): Promise<Round> => {
    const requests = Array.from({ length: BURST }, (_, i) =>
      signed(`image generate a red fox number ${round}-${i} --seed ${i}`, `U0SPEND${round + 1}X${i}`),
    );
    sender.postMessage({ url: bot.info.eventsUrl, requests });
    const [timed] = (await once(sender, "message")) as [
      { id: string; sent: number; acked: number; ok: boolean }[],
    ];
    return roundFigures(
      timed.filter((t) => t.ok),
      timed.filter((t) => !t.ok).length,
    );
  };
  try {
    const result = await runRounds({
      name: `spend-slack-ack-${budgets}`,
      burst: BURST,
      targetP99: SPEND_TARGET_P99_MS,
      rounds,
      send: burst,
      calls: () => fake.calls.length + emulator.calls.length,
    });
    const probes = emulator.callsTo("GET", "/api/usage").length;
    await stopProcess(bot.child);
    const booked = budgets === "budgets" ? await bookOf(dir, tenant) : undefined;
    if (budgets === "budgets" && probes === 0)
      throw new Error("no start probed the account: spending did not run");
    return { platform: "slack", budgets, result: stripTimed(result), ...(booked && { booked }) };
  } finally {
    await sender.terminate();
    await stopProcess(bot.child);
    await emulator.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function discordAck(budgets: Budgets, rounds: number): Promise<SpendAck> {
  const fake = await startFakeDiscord();
  const dir = mkdtempSync(join(tmpdir(), "bench-spend-discord-"));
  const tenant: TenantRef = { platform: "discord", tenantId: fake.guild.id };
  if (budgets === "budgets") await seedBudgets(dir, tenant);
  const emulator = await startProcess<{ url: string }>(EMULATOR, []);
  const bot = await startProcess<{ ready: boolean }>(DISCORD_BOT, [
    fake.restUrl,
    fake.token,
    fake.guild.id,
    emulator.info.url,
    dir,
  ]);
  const burst = (round: number): Promise<Round> => discordCommandBurst(fake, round, "spend");
  try {
    const result = await runRounds({
      name: `spend-discord-ack-${budgets}`,
      burst: BURST,
      targetP99: SPEND_TARGET_P99_MS,
      rounds,
      send: burst,
      calls: () => fake.calls.length,
    });
    await stopProcess(bot.child);
    const booked = budgets === "budgets" ? await bookOf(dir, tenant) : undefined;
    return { platform: "discord", budgets, result: stripTimed(result), ...(booked && { booked }) };
  } finally {
    await stopProcess(bot.child);
    await stopProcess(emulator.child);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function stripTimed(result: AckResult): AckResult {
  return { ...result, rounds: result.rounds.map(({ timed: _timed, ...round }) => round) };
}
