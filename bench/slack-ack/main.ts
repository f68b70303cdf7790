/**
 * How fast the Slack side acknowledges a burst: 200 signed `/media image generate ...` requests
 * sent at once to the real Bolt app (HTTP mode), timed from send to Bolt's HTTP answer. Slack
 * gives up after 3 s; the target is p99 < 250 ms. Behind the acks the whole bot works for real
 * (users.info, validation, creation calls at the media API emulator, job messages, polling,
 * uploads), so the acks compete with that work for the event loop, as they would in production.
 * Rounds start once the previous round's work has drained; the figures are medians over rounds
 * (bench/ack.ts).
 *
 * The floor: each round first sends the same burst to a bare server that only checks Slack's
 * signature and answers an empty 200 (bench/floor/slack-process.ts); the verdict is the bot's p99
 * over the floor's, target at most 1.3 (issue 36).
 *
 * The bot runs in a process of its own (test/slack/bot-process.ts) with `npm start`'s Node flags,
 * the floor in another; the fake Slack, the emulator and the requests run here.
 *
 *   npx tsx bench/slack-ack/main.ts [rounds]      (default 5 rounds; prints and writes bench/results/slack-ack.json)
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { startEmulator } from "../../test/fakes/media-api/index.js";
import { startFakeSlack } from "../../test/fakes/slack/index.js";
import { startFlags } from "../../test/main-process.js";
import {
  type AckResult,
  BURST,
  breakdown,
  type Round,
  readTimings,
  report,
  roundFigures,
  runRounds,
  startProcess,
  stopProcess,
  TARGET_P99_MS,
} from "../ack.js";
import { HTTP_BURST_SENDER, SLACK_MINUTE_MS, signedSlackRequest } from "../bursts.js";

/** The bot runs alone in its process: the fakes and this load generator do not share its event loop. */
const BOT = fileURLToPath(new URL("../../test/slack/bot-process.ts", import.meta.url));
/** Loaded into the bot's process: when each request reached it and when its ack left. */
const TIMINGS = fileURLToPath(new URL("../ack-timings.ts", import.meta.url));
const FLOOR = fileURLToPath(new URL("../floor/slack-process.ts", import.meta.url));

export type { Round };
export type SlackAckResult = AckResult<"slack-ack" | "slack-ack-clicks">;

/** Measures, prints the figures and writes them to bench/results/slack-ack.json and slack-ack-clicks.json. */
export async function run(rounds = 5): Promise<SlackAckResult[]> {
  const [commands, clicks] = await measure(rounds);
  report(commands, "signed slash commands at once");
  report(clicks, "signed clicks on Regenerate at once");
  return [commands, clicks];
}

async function measure(rounds: number): Promise<[SlackAckResult, SlackAckResult]> {
  const fake = await startFakeSlack({ tiers: { minuteMs: SLACK_MINUTE_MS } });
  const emulator = await startEmulator({ timeScale: 0.01 });
  emulator.account("test-key").creditsLimit = 1_000_000_000;
  const dir = mkdtempSync(join(tmpdir(), "bench-slack-ack-"));
  const timings = join(dir, "ack-timings.json");
  process.env.ACK_TIMINGS = timings;
  const bot = await startProcess<{ eventsUrl: string }>(
    BOT,
    [fake.apiUrl, fake.botToken, fake.signingSecret, emulator.url, dir, String(SLACK_MINUTE_MS)],
    ["--expose-gc", ...startFlags(), "--import", TIMINGS],
  );
  const url = bot.info.eventsUrl;
  const floor = await startProcess<{ url: string }>(FLOOR, [fake.signingSecret]);

  const sender = new Worker(HTTP_BURST_SENDER, { eval: true });

  /**
   * A signed request as Slack sends it, signed before the clock starts. Each comes from a person
   * of its own (a team at once, not three people typing 200 commands), so no one hits the
   * per-person job limit or drags a long job history along; users.info does not know these ids,
   * which the bot takes as "not an admin".
   */
  let sequence = 0;
  function signed(text: string, user: string) {
    const payload = { ...fake.payloads.slashCommand({ text }).payload, user_id: user, user_name: user };
    return signedBody(new URLSearchParams(payload).toString());
  }

  /** A click on `actionId` in message `ts` by `user`, as Slack posts a block_actions payload. */
  function signedClick(actionId: string, ts: string, user: string) {
    const payload = fake.payloads.blockAction({ actionId, message: ts }).payload as { user: object };
    const clicked = { ...payload, user: { ...payload.user, id: user, username: user, name: user } };
    return signedBody(new URLSearchParams({ payload: JSON.stringify(clicked) }).toString());
  }

  function signedBody(body: string) {
    sequence += 1;
    return signedSlackRequest(fake.signingSecret, `r${sequence}`, body);
  }

  /**
   * One burst: every request built first, then all sent in the same tick. Answers other than 200
   * count as failed (a late ack is a 404 from Bolt).
   */
  const commandBurst = (round: number, to: string) =>
    sendAll(
      to,
      Array.from({ length: BURST }, (_, i) =>
        signed(`image generate a red fox number ${round}-${i} --seed ${i}`, `U0BENCH${round + 1}X${i}`),
      ),
    );

  /**
   * A burst of clicks: people who were not asked click Regenerate under one finished image at
   * once (each click starts a job of its own, so the work behind the acks is a command's).
   */
  async function clickBurst(round: number, to: string): Promise<Round> {
    const target = fake.messages().flatMap((m) => {
      const actionId = JSON.stringify(m.blocks ?? []).match(/"action_id":"(media:regenerate:[^"]+)"/)?.[1];
      return actionId ? [{ ts: m.ts, actionId }] : [];
    })[0];
    if (!target) throw new Error("no finished image with a Regenerate button to click");
    return sendAll(
      to,
      Array.from({ length: BURST }, (_, i) =>
        signedClick(target.actionId, target.ts, `U0CLICK${round + 1}X${i}`),
      ),
    );
  }

  async function sendAll(to: string, requests: ReturnType<typeof signedBody>[]): Promise<Round> {
    sender.postMessage({ url: to, requests });
    const [timed] = (await once(sender, "message")) as [
      { id: string; sent: number; acked: number; ok: boolean }[],
    ];
    return roundFigures(
      timed.filter((t) => t.ok),
      timed.filter((t) => !t.ok).length,
    );
  }

  try {
    const common = {
      burst: BURST,
      targetP99: TARGET_P99_MS,
      rounds,
      // Calls to Slack or the service: both fakes run here.
      calls: () => fake.calls.length + emulator.calls.length,
    };
    const commands = await runRounds({
      ...common,
      name: "slack-ack",
      send: (round) => commandBurst(round, url),
      floor: (round) => commandBurst(round, floor.info.url),
    });
    const clicks = await runRounds({
      ...common,
      name: "slack-ack-clicks",
      send: (round) => clickBurst(round, url),
      floor: (round) => clickBurst(round, floor.info.url),
    });
    await stopProcess(bot.child);
    const marks = readTimings(timings);
    return [
      { ...commands, breakdown: breakdown(commands.rounds, marks) },
      { ...clicks, breakdown: breakdown(clicks.rounds, marks) },
    ];
  } finally {
    await sender.terminate();
    await stopProcess(bot.child);
    await stopProcess(floor.child);
    await emulator.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await run(Number(process.argv[2] ?? 5));
  process.exitCode = results.every((r) => r.pass) ? 0 : 1;
}
