/**
 * One chaos campaign: a steady flow of commands from the mix, and kills of one bot instance at
 * chosen moments of the job life, each heard from the proxies the instant a request of that kind
 * is in flight. After each kill the instance is restarted at once (same INSTANCE_ID), or, when
 * another instance shares the store, only once that survivor took over its jobs (or a deadline
 * passed). Counts what a user and the service would see; see `summarize`.
 */
import { createMediaClient, fetchStatus, type MediaApi } from "../../src/core/api/index.js";
import type { JobKind } from "../../src/core/api/job-status.js";
import type { CrashWorld, Instance } from "../../test/crash-world.js";
import { STATUS_PATH } from "../../test/crash-world.js";
import type { RecordedCall } from "../../test/fakes/media-api/index.js";
import type { HttpProxy, ProxiedRequest } from "../../test/fakes/proxy.js";
import {
  CONFIRM_PATH,
  CREATION_PATH,
  postedResults,
  type Scenario,
  shownTags,
  TAG,
  type Traffic,
  takingTurns,
  UPLOAD_PATH,
} from "./mix.js";

export const MOMENTS = ["creation", "polling", "confirm", "upload", "post"] as const;
/**
 * Not a kill: the store (redis) is stopped for `outageMs` and started again with its data, as an
 * operator's restart does, while every instance runs on.
 */
export const STORE_OUTAGE = "store";
/**
 * Not a kill of the bot: the Redis primary is SIGKILLed (under Sentinel) once a creation call or a
 * status read is in flight; the sentinels promote its replica, and the killed node comes back as
 * the new primary's replica, so that the next primary kill promotes again.
 */
export const PRIMARY_KILL = "primary";
export type Moment = (typeof MOMENTS)[number] | typeof STORE_OUTAGE | typeof PRIMARY_KILL;

export interface CampaignOptions {
  world: CrashWorld;
  /** Instance ids; the first is the one killed. */
  instances: string[];
  kills: number;
  moments: readonly Moment[];
  scenarios: Scenario[];
  /** Commands in flight at once. */
  concurrency: number;
  /** A moment that does not come within this long is given up for the next one. */
  armMs: number;
  /** Pause after a restart before the next moment is armed: uniform in [0, pauseMs]. */
  pauseMs: number;
  /** With a survivor: how long it gets to take the killed instance's jobs before the restart. */
  takeoverMs: number;
  /** After the last kill, how long results may still take. */
  drainMs: number;
  /** The store, for the `store` moment: stopped, and started again on the same address and data. */
  store?: { down(): Promise<void>; up(): Promise<void> };
  /** How long each store outage lasts: uniform in [min, max]. */
  outageMs?: [min: number, max: number];
  /** The Redis group, for the `primary` moment. */
  failover?: Failover;
  random: () => number;
  log: (line: string) => void;
}

/** What the `primary` moment needs of a Redis group behind Sentinel (test/store/redis-process.ts). */
export interface Failover {
  killPrimary(): Promise<{ host: string; port: number }>;
  promotion(old: { host: string; port: number }, withinMs: number): Promise<{ at: number }>;
  revive(node: { host: string; port: number }): Promise<void>;
  replicated(withinMs: number): Promise<void>;
}

export interface Kill {
  moment: Moment;
  at: number;
  /** Tag of the command whose creation answer the kill cut off. */
  lostAnswerOf?: string;
  /** From the kill until the restarted instance logged it started. */
  restartMs?: number;
  /** From the kill to the first status read of a job that was being polled before it (null: none came). */
  recoveryMs: number | null;
  /** Jobs polled in the 15 s before the kill that still ran at the service. */
  pending: number;
  /**
   * A store outage: `at` is its end (the store answers again), `pending` the results under way
   * when it began, `firstResultMs` / `recoveryMs` from its end to the first / last of them
   * posted; `awayMs` its length.
   */
  awayMs?: number;
  firstResultMs?: number;
  /**
   * A primary kill: `at` is the promotion, `awayMs` from the kill to it, `recoveryMs` from it to
   * every instance ready again (/readyz 200: its store answers), `resultsMs` to the last result
   * posted of those then waiting (`pending`), `firstResultMs` to the first.
   */
  resultsMs?: number;
}

export interface Command {
  tag: string;
  scenario: string;
  platform: string;
  acknowledged: boolean;
}

export interface CampaignResult {
  commands: Command[];
  kills: Kill[];
  missedMoments: Record<string, number>;
  unexpectedExits: number;
  durationMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RECENT_POLL_MS = 15_000;
/**
 * How long a command keeps its place among those in flight while its result does not come: a
 * stuck job then makes room for new commands (its result is still counted if it comes later).
 */
const SLOT_MS = 45_000;
/** A command with no creation call this long after it was acknowledged was refused. */
const REFUSED_AFTER_MS = 15_000;

/** Tags of the commands whose creation call reached the service. */
function createdTags(world: CrashWorld): Set<string> {
  const tags = new Set<string>();
  for (const call of world.emu.calls) {
    if (call.method !== "POST" || !CREATION_PATH.test(call.path)) continue;
    const tag = TAG.exec(JSON.stringify(call.json ?? call.fields ?? {}))?.[0];
    if (tag) tags.add(tag);
  }
  return tags;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const { world } = options;
  const startedAt = Date.now();
  // The campaign's own look at the service, past the proxies: which jobs still run at a kill.
  const client = createMediaClient({ baseUrl: world.emu.url });
  const api = client.as("test-key");
  const [victimId, ...survivorIds] = options.instances;
  const up = new Map<string, Instance>();
  const waiters: (() => void)[] = [];
  const killedByUs = new Set<number | undefined>();
  let unexpectedExits = 0;

  const bringUp = async (id: string) => {
    const instance = await world.startInstance(id);
    up.set(id, instance);
    void instance.bot.exited.then(async () => {
      if (killedByUs.has(instance.bot.pid) || over) return;
      // The bot ended without being killed: that is a finding, and the campaign goes on.
      unexpectedExits += 1;
      options.log(`instance ${id} exited on its own:\n${instance.bot.tail(10)}`);
      up.delete(id);
      await bringUp(id);
    });
    for (const wake of waiters.splice(0)) wake();
    return instance;
  };
  const allProxies = new Set<HttpProxy>();

  let over = false;
  const traffic: Traffic = {
    world,
    user: takingTurns(world, options.concurrency, "chaos"),
    get over() {
      return over;
    },
    async live() {
      for (;;) {
        const running = [...up.values()];
        if (running.length > 0) return running[Math.floor(options.random() * running.length)]!;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    },
  };

  for (const id of options.instances) allProxies.add((await bringUp(id)).media);

  // ---- the flow of commands ----
  const commands: Command[] = [];
  let inFlight = 0;
  let stopLoad = false;
  let next = 0;
  /** The moment armed now: while it is a rare one, the next commands are those that offer it. */
  let armed: Moment | undefined;
  const offers = (scenario: Scenario) =>
    armed === "upload" ? scenario.upload : armed === "confirm" ? scenario.confirm : true;
  const load = (async () => {
    while (!stopLoad) {
      if (inFlight >= options.concurrency) {
        await sleep(100);
        continue;
      }
      const index = commands.length;
      while (!offers(options.scenarios[next % options.scenarios.length]!)) next += 1;
      const scenario = options.scenarios[next++ % options.scenarios.length]!;
      const command: Command = {
        tag: `chaos-${index + 1}`,
        scenario: scenario.name,
        platform: scenario.platform,
        acknowledged: false,
      };
      commands.push(command);
      inFlight += 1;
      void (async () => {
        try {
          command.acknowledged = await scenario.run(traffic, command.tag, index);
          const acknowledgedAt = Date.now();
          const end = acknowledgedAt + SLOT_MS;
          // A command the bot refused (the store away) never makes a creation call: it makes room.
          const refused = () =>
            Date.now() - acknowledgedAt > REFUSED_AFTER_MS && !createdTags(world).has(command.tag);
          while (
            command.acknowledged &&
            !over &&
            Date.now() < end &&
            !postedResults(world).has(command.tag) &&
            !refused()
          )
            await sleep(250);
        } catch (error) {
          options.log(`command ${command.tag} (${scenario.name}) failed to drive: ${String(error)}`);
        } finally {
          inFlight -= 1;
        }
      })();
      await sleep(50);
    }
  })();

  // ---- the kills ----
  const kills: Kill[] = [];
  const missedMoments: Record<string, number> = {};
  let turn = 0;
  let missed = 0;
  while (kills.length < options.kills && missed <= options.kills) {
    // Moments take turns; one that did not come in time passes its turn to the next.
    const moment = options.moments[turn++ % options.moments.length]!;
    if (moment === PRIMARY_KILL) {
      const promotion = await primaryKill(options, allProxies, () => [...up.values()]);
      kills.push(promotion);
      options.log(
        `promotion ${kills.length}/${options.kills}: primary killed, replica promoted ${promotion.awayMs} ms later; jobs read again ${promotion.recoveryMs ?? "(none under way)"} ms after it; of the ${promotion.pending} results waiting the last posted ${promotion.resultsMs ?? "(not all)"} ms after it`,
      );
      await sleep(options.random() * options.pauseMs);
      continue;
    }
    if (moment === STORE_OUTAGE) {
      const outage = await storeOutage(options, allProxies);
      kills.push(outage);
      options.log(
        `outage ${kills.length}/${options.kills}: store away ${outage.awayMs} ms; of the ${outage.pending} results then under way the first posted ${outage.firstResultMs ?? "(none)"} ms after its return, the last ${outage.recoveryMs ?? "(not all)"}`,
      );
      await sleep(options.random() * options.pauseMs);
      continue;
    }
    const victim = up.get(victimId!)!;
    armed = moment;
    const fired = await armKill(world, victim, moment, options.armMs, (pid) => killedByUs.add(pid));
    armed = undefined;
    if (!fired) {
      missedMoments[moment] = (missedMoments[moment] ?? 0) + 1;
      missed += 1;
      continue;
    }
    up.delete(victimId!);
    const kill: Kill = { moment, at: fired.at, recoveryMs: null, pending: 0, ...fired.extra };
    kills.push(kill);
    const pending = recentlyPolled(victim.media, fired.at);
    watchRecovery(allProxies, pending, kill);
    await dropFinished(api, pending);
    kill.pending = pending.size;
    if (survivorIds.length > 0) {
      const end = Date.now() + options.takeoverMs;
      while (kill.recoveryMs === null && pending.size > 0 && Date.now() < end) await sleep(100);
    }
    await bringUp(victimId!);
    kill.restartMs = Date.now() - fired.at;
    options.log(
      `kill ${kills.length}/${options.kills} at ${moment}: restarted in ${kill.restartMs} ms, recovery ${kill.recoveryMs ?? "pending"}`,
    );
    await sleep(options.random() * options.pauseMs);
  }
  stopLoad = true;
  await load;

  // ---- the drain: results of commands still in flight ----
  const end = Date.now() + options.drainMs;
  while (Date.now() < end && inFlight > 0) await sleep(250);
  over = true;
  for (const instance of up.values()) {
    killedByUs.add(instance.bot.pid);
    await instance.bot.kill();
  }
  await client.close();
  return { commands, kills, missedMoments, unexpectedExits, durationMs: Date.now() - startedAt };
}

/**
 * The store goes away for a while and comes back; the instances run on. What it measures: from the
 * store's return to the first result posted, and to the last, of the jobs under way when it left
 * (shown as running, not yet posted): most of them finished at the service meanwhile.
 */
async function storeOutage(options: CampaignOptions, proxies: Set<HttpProxy>): Promise<Kill> {
  const { store, world } = options;
  const [min, max] = options.outageMs ?? [15_000, 60_000];
  if (!store) throw new Error("the store moment needs a store to stop");
  // Armed like a kill: the store goes while jobs are being polled.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, options.armMs);
    const stops = [...proxies].map((proxy) =>
      proxy.onRequest((r) => r.method === "GET" && STATUS_PATH.test(r.path) && done()),
    );
    function done() {
      clearTimeout(timer);
      for (const stop of stops) stop();
      resolve();
    }
  });
  const downAt = Date.now();
  const posted = postedResults(world);
  const waiting = [...shownTags(world)].filter((tag) => !posted.has(tag));
  await store.down();
  await sleep(Math.max(0, downAt + min + options.random() * (max - min) - Date.now()));
  await store.up();
  const at = Date.now();
  const outage: Kill = {
    moment: STORE_OUTAGE,
    at,
    awayMs: at - downAt,
    recoveryMs: null,
    pending: waiting.length,
  };
  // The next moment waits for them (a photo avatar's variants wait for their click): a kill now
  // would blur what the outage did.
  while (Date.now() < at + options.takeoverMs) {
    const now = postedResults(world);
    const done = waiting.filter((tag) => now.has(tag)).length;
    if (done > 0) outage.firstResultMs ??= Date.now() - at;
    if (done === waiting.length) {
      outage.recoveryMs = Date.now() - at;
      break;
    }
    await sleep(100);
  }
  return outage;
}

/**
 * The Redis primary is SIGKILLed while a creation call or a status read is in flight, both
 * instances running on; the sentinels promote the replica. Measured from the promotion: every
 * instance ready again (back on the new primary), and the last result posted of those waiting when
 * the primary died. Then the killed node comes back as the new primary's
 * replica, in sync before the next moment, so that every primary kill is a promotion.
 */
async function primaryKill(
  options: CampaignOptions,
  proxies: Set<HttpProxy>,
  instances: () => Instance[],
): Promise<Kill> {
  const { failover, world } = options;
  if (!failover) throw new Error("the primary moment needs a Redis group behind Sentinel");
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, options.armMs);
    const stops = [...proxies].map((proxy) =>
      proxy.onRequest((r) => {
        const creation = r.method === "POST" && CREATION_PATH.test(r.path);
        if (creation || (r.method === "GET" && STATUS_PATH.test(r.path))) done();
      }),
    );
    function done() {
      clearTimeout(timer);
      for (const stop of stops) stop();
      resolve();
    }
  });
  const posted = postedResults(world);
  const waiting = [...shownTags(world)].filter((tag) => !posted.has(tag));
  const killedAt = Date.now();
  const killed = await failover.killPrimary();
  const { at } = await failover.promotion(killed, 60_000);
  const promotion: Kill = {
    moment: PRIMARY_KILL,
    at,
    awayMs: at - killedAt,
    recoveryMs: null,
    pending: waiting.length,
  };
  // Back on the new primary: every instance ready again (its store answers).
  const readyAgain = Promise.all(
    instances().map(async (instance) => {
      const readyz = instance.slackEventsUrl.replace(/\/slack\/events$/, "/readyz");
      while (Date.now() < at + options.takeoverMs) {
        if (
          (await fetch(readyz)
            .then((r) => r.status)
            .catch(() => 0)) === 200
        )
          return Date.now() - at;
        await sleep(50);
      }
      return Number.POSITIVE_INFINITY;
    }),
  ).then((times) => {
    const slowest = Math.max(0, ...times);
    promotion.recoveryMs = Number.isFinite(slowest) ? slowest : null;
  });
  try {
    await failover.revive(killed);
    await readyAgain;
    while (Date.now() < at + options.takeoverMs) {
      const now = postedResults(world);
      const done = waiting.filter((tag) => now.has(tag)).length;
      if (done > 0) promotion.firstResultMs ??= Date.now() - at;
      if (done === waiting.length) {
        promotion.resultsMs = Date.now() - at;
        break;
      }
      await sleep(100);
    }
    await failover.replicated(30_000);
  } finally {
    await readyAgain;
  }
  return promotion;
}

/**
 * Waits for a request of the moment's kind and SIGKILLs the instance during it. Creation and
 * confirm calls are killed once the service applied them and before the answer is relayed (the
 * answer is lost); polls and uploads as their request arrives; posts once the chat's answer was
 * relayed, before the bot could record it (a channel message or a followup on Discord, a message
 * or a completed upload on Slack; edits of progress are left alone).
 */
async function armKill(
  world: CrashWorld,
  victim: Instance,
  moment: Moment,
  armMs: number,
  killing: (pid: number | undefined) => void,
): Promise<{ at: number; extra: Partial<Kill> } | undefined> {
  return new Promise((resolve) => {
    const stops: (() => void)[] = [];
    const finish = (result: { at: number; extra: Partial<Kill> } | undefined) => {
      for (const stop of stops.splice(0)) stop();
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => finish(undefined), armMs);
    const kill = (extra: Partial<Kill> = {}) => {
      if (stops.length === 0) return;
      killing(victim.bot.pid);
      const at = Date.now();
      for (const stop of stops.splice(0)) stop();
      void victim.bot.kill().then(() => finish({ at, extra }));
    };
    const matches = (r: ProxiedRequest, method: string, path: RegExp) =>
      r.method === method && path.test(r.path);
    switch (moment) {
      case "creation":
        stops.push(
          victim.media.onAnswer((a) => {
            if (matches(a, "POST", CREATION_PATH) && a.status === 200)
              kill({ ...lastCreationTag(world, a.path) });
          }),
        );
        break;
      case "polling":
        stops.push(victim.media.onRequest((r) => matches(r, "GET", STATUS_PATH) && kill()));
        break;
      case "confirm":
        stops.push(victim.media.onAnswer((a) => matches(a, "POST", CONFIRM_PATH) && kill()));
        break;
      case "upload":
        stops.push(victim.media.onRequest((r) => matches(r, "POST", UPLOAD_PATH) && kill()));
        break;
      case "post":
        stops.push(
          world.slackApi.onRelayed(
            (a) => /\/chat\.postMessage$|\/files\.completeUploadExternal$/.test(a.path) && kill(),
          ),
        );
        if (world.discordRest)
          stops.push(
            world.discordRest.onRelayed(
              (a) =>
                a.method === "POST" &&
                /\/(channels\/\d+\/messages|webhooks\/\d+\/[^/]+)$/.test(a.path) &&
                kill(),
            ),
          );
        break;
    }
  });
}

/** The command whose creation call the service answered last on `path`. */
function lastCreationTag(world: CrashWorld, path: string): Partial<Kill> {
  const call = world.emu.callsTo("POST", path).findLast((c) => c.status === 200);
  const tag = call && TAG.exec(JSON.stringify(call.json ?? call.fields ?? {}))?.[0];
  return tag ? { lostAnswerOf: tag } : {};
}

/** Status paths polled through `proxy` in the seconds before `at`: jobs the instance looked after. */
function recentlyPolled(proxy: HttpProxy, at: number): Set<string> {
  const paths = new Set<string>();
  for (let i = proxy.requests.length - 1; i >= 0; i--) {
    const r = proxy.requests[i]!;
    if (r.at < at - RECENT_POLL_MS) break;
    if (r.method === "GET" && STATUS_PATH.test(r.path) && r.at <= at) paths.add(r.path);
  }
  return paths;
}

const STATUS_KINDS: [RegExp, JobKind][] = [
  [/^\/api\/video\/([^/]+)\/status$/, "video"],
  [/^\/api\/avatar\/jobs\/([^/]+)\/status$/, "photo_avatar"],
  [/^\/api\/mockup\/([^/]+)\/status$/, "mockup"],
  [/^\/api\/thumbnail\/([^/]+)$/, "thumbnail"],
  [/^\/api\/image\/([^/]+)$/, "image"],
];

/**
 * Leaves in `paths` only the jobs that still run at the service: a finished job, or one that
 * waits for a choice, is rightly not read again, so it says nothing of how soon polling resumed.
 */
async function dropFinished(api: MediaApi, paths: Set<string>): Promise<void> {
  await Promise.all(
    [...paths].map(async (path) => {
      const [pattern, kind] = STATUS_KINDS.find(([re]) => re.test(path)) ?? [];
      const id = pattern?.exec(path)?.[1];
      const status = kind && id ? await fetchStatus(api, kind, id).catch(() => undefined) : undefined;
      if (!status || status.terminal || status.state === "needs_choice") paths.delete(path);
    }),
  );
}

/** Sets `kill.recoveryMs` at the first read of a pending job after the kill, by any instance. */
function watchRecovery(proxies: Set<HttpProxy>, pending: Set<string>, kill: Kill): void {
  if (pending.size === 0) return;
  const stops = [...proxies].map((proxy) =>
    proxy.onRequest((r) => {
      if (r.at <= kill.at || r.method !== "GET" || !pending.has(r.path)) return;
      kill.recoveryMs = r.at - kill.at;
      for (const stop of stops) stop();
    }),
  );
}

/**
 * Commands whose creation call the service took, but whose process was killed before it recorded
 * the job (whatever moment the kill was armed for: a poll of another job may come a few ms after
 * the answer): the bot never knew of the job, exactly as when the answer itself is cut off. The
 * bot records a job before it shows it, so such a command never shows a job message, and a kill
 * followed its creation call closely, or came while its request was on the way: the emulator
 * stamps a call when it answers, which can be a few milliseconds after the SIGKILL of the process
 * that sent it (chaos-37 of the run of 2026-11-26 16:50: stamped 5 ms after the kill, and its
 * person told "Your job may have been created" by the restart, as designed).
 */
function killedBeforeRecorded(world: CrashWorld, creations: RecordedCall[], kills: Kill[]): string[] {
  const shown = shownTags(world);
  return creations.flatMap((call) => {
    const tag = TAG.exec(JSON.stringify(call.json ?? call.fields ?? {}))?.[0];
    const cut = kills.some(
      (k) => killsTheBot(k) && k.at - call.at > -IN_FLIGHT_MS && k.at - call.at < RECORD_WINDOW_MS,
    );
    return tag && call.status === 200 && cut && !shown.has(tag) ? [tag] : [];
  });
}

/** A SIGKILL of the bot, not of its store. */
function killsTheBot(kill: Kill): boolean {
  return kill.moment !== STORE_OUTAGE && kill.moment !== PRIMARY_KILL;
}

/** From a creation call's arrival at the service to the bot's record of its job, on a loaded machine. */
const RECORD_WINDOW_MS = 10_000;
/** A creation request sent before a kill is answered (and stamped) within this after it; a restart takes about 1 s, so no call of the next process is stamped this soon. */
const IN_FLIGHT_MS = 250;

export interface Summary {
  commandsSent: number;
  notAcknowledged: number;
  acknowledged: number;
  creationCalls: number;
  commandsWithRepeatedCreation: string[];
  /** Acknowledged, but no creation reached the service (killed during the upload or before the call). */
  noJobCreated: number;
  answerLost: { commands: number; inServiceLists: number; resultPostedAnyway: number };
  expectedResults: number;
  delivered: number;
  lost: string[];
  postedTwice: string[];
  confirmCalls: number;
  kills: Record<string, number>;
  recovery: { measured: number; none: number; p50: number; p95: number; max: number };
  restartMs: { p50: number; p95: number; max: number };
  /** Store outages: how long each lasted, and from its end to the first and last result posted of those then under way. */
  outages?: {
    count: number;
    awayMs: number[];
    firstResultMs: (number | null)[];
    resumedMs: (number | null)[];
    waiting: number[];
  };
  /** Primary kills under Sentinel: kill to promotion, promotion to every instance ready and to the last result waiting. */
  promotions?: {
    count: number;
    promotedMs: number[];
    readyMs: (number | null)[];
    firstResultMs: (number | null)[];
    resultsMs: (number | null)[];
    waiting: number[];
  };
}

export function summarize(
  world: CrashWorld,
  result: CampaignResult,
  percentile: (s: number[], p: number) => number,
): Summary {
  const creations = world.emu.calls.filter((c) => c.method === "POST" && CREATION_PATH.test(c.path));
  const creationsOf = new Map<string, number>();
  for (const call of creations) {
    const tag = TAG.exec(JSON.stringify(call.json ?? call.fields ?? {}))?.[0];
    if (tag && call.status === 200) creationsOf.set(tag, (creationsOf.get(tag) ?? 0) + 1);
  }
  const posted = postedResults(world);
  const lostAnswers = new Set([
    ...result.kills.flatMap((k) => (k.lostAnswerOf ? [k.lostAnswerOf] : [])),
    ...killedBeforeRecorded(world, creations, result.kills),
  ]);
  const acknowledged = result.commands.filter((c) => c.acknowledged);
  const withJob = acknowledged.filter((c) => (creationsOf.get(c.tag) ?? 0) > 0);
  const expected = withJob.filter((c) => !lostAnswers.has(c.tag));
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const outages = result.kills.filter((k) => k.moment === STORE_OUTAGE);
  const promotions = result.kills.filter((k) => k.moment === PRIMARY_KILL);
  const killed = result.kills.filter(killsTheBot);
  const recoveries = sorted(killed.flatMap((k) => (k.recoveryMs === null ? [] : [k.recoveryMs])));
  const restarts = sorted(result.kills.flatMap((k) => (k.restartMs === undefined ? [] : [k.restartMs])));
  const kills: Record<string, number> = {};
  for (const k of result.kills) kills[k.moment] = (kills[k.moment] ?? 0) + 1;
  return {
    commandsSent: result.commands.length,
    notAcknowledged: result.commands.length - acknowledged.length,
    acknowledged: acknowledged.length,
    creationCalls: [...creationsOf.values()].reduce((a, b) => a + b, 0),
    commandsWithRepeatedCreation: [...creationsOf].filter(([, n]) => n > 1).map(([tag]) => tag),
    noJobCreated: acknowledged.length - withJob.length,
    answerLost: {
      commands: lostAnswers.size,
      // The emulator answered 200 to the call: the job is in the service's lists.
      inServiceLists: [...lostAnswers].filter((tag) => (creationsOf.get(tag) ?? 0) > 0).length,
      resultPostedAnyway: [...lostAnswers].filter((tag) => posted.has(tag)).length,
    },
    expectedResults: expected.length,
    delivered: expected.filter((c) => posted.get(c.tag) === 1).length,
    lost: expected.filter((c) => !posted.has(c.tag)).map((c) => `${c.tag} (${c.platform} ${c.scenario})`),
    postedTwice: result.commands
      .filter((c) => (posted.get(c.tag) ?? 0) > 1)
      .map((c) => `${c.tag} (${c.platform} ${c.scenario})`),
    confirmCalls: world.emu.calls.filter((c) => c.method === "POST" && CONFIRM_PATH.test(c.path)).length,
    kills,
    recovery: {
      measured: recoveries.length,
      none: killed.filter((k) => k.recoveryMs === null && k.pending > 0).length,
      p50: percentile(recoveries, 50),
      p95: percentile(recoveries, 95),
      max: recoveries.at(-1) ?? 0,
    },
    restartMs: { p50: percentile(restarts, 50), p95: percentile(restarts, 95), max: restarts.at(-1) ?? 0 },
    ...(outages.length > 0 && {
      outages: {
        count: outages.length,
        awayMs: outages.map((k) => k.awayMs ?? 0),
        firstResultMs: outages.map((k) => k.firstResultMs ?? null),
        resumedMs: outages.map((k) => (k.pending > 0 ? k.recoveryMs : null)),
        waiting: outages.map((k) => k.pending),
      },
    }),
    ...(promotions.length > 0 && {
      promotions: {
        count: promotions.length,
        promotedMs: promotions.map((k) => k.awayMs ?? 0),
        readyMs: promotions.map((k) => k.recoveryMs),
        firstResultMs: promotions.map((k) => k.firstResultMs ?? null),
        resultsMs: promotions.map((k) => (k.pending > 0 ? (k.resultsMs ?? null) : null)),
        waiting: promotions.map((k) => k.pending),
      },
    }),
  };
}
