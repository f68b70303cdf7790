import { setTimeout as sleep } from "node:timers/promises";
import { StoreError } from "../../store/errors.js";
import { type JobRecord, newJobId } from "../../store/jobs.js";
import type { QueueLimits } from "../../store/queue.js";
import type { WriteCheckpoint } from "../../store/redis-link.js";
import type { TenantSettings } from "../../store/tenants.js";
import { BotError, StoreAwayError } from "../base/errors.js";
import { jobTransitionsTotal } from "../base/metrics.js";
import type { Actor, ChatAdapter, ConversationRef, MessageRef } from "../base/ports.js";
import type { StartedJob } from "../commands/define.js";
import { JobLimitError, QueueFullError } from "../commands/errors.js";
import { readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { despiteOutage } from "../jobs/despite-outage.js";
import { queuedCard, unpostedCard, untrackedCard } from "../render/job.js";
import { currentTap } from "../spend/tap.js";
import { type TenantRef, tenantOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/** Bounds a start whose process lives but hangs (a slow upload); a crashed process's claim is free at once. */
const START_CLAIM_MS = 120_000;
const START_WAIT_MS = 150_000;

/**
 * The running limits of a tenant's people and of the tenant, as its admins set them (`/setup`),
 * else the bot's defaults.
 */
export async function limitsOf(
  core: Core,
  tenant: TenantRef,
  settings?: TenantSettings,
): Promise<QueueLimits> {
  const set = settings ?? (await core.tenancy.settings(tenant));
  return {
    person: set.runningLimit ?? core.jobLimit,
    queue: set.queueLimit ?? core.queueLimit,
    tenant: set.tenantRunningLimit ?? 0,
  };
}

/**
 * A start takes its place in its person's queue, decided in one atomic step of the store (so two
 * commands sent together, or sent to two replicas, never both take the last running place): it
 * may start now (its running place is taken, under the returned id, which the job's record will
 * keep), or waits behind `ahead` of its person's (`payload`: what to start then), or is refused:
 * its person's queue is full, or, for a start that cannot wait (no `payload`), every place is taken.
 */
export async function takePlace(
  core: Core,
  actor: Actor,
  limits: QueueLimits,
  payload?: string,
): Promise<{ id: string; ahead?: number }> {
  // Known away: refused now, rather than after the store's first try fails.
  if (!core.availability.available) throw new StoreAwayError();
  await core.turns.freeEnded(tenantOf(actor), actor.userId, limits.person);
  const id = newJobId();
  const entered = await core.queue.enqueue(
    {
      id,
      tenant: tenantOf(actor),
      userId: actor.userId,
      at: Date.now(),
      payload: payload ?? "{}",
      owner: core.engine.liveness.id,
    },
    payload === undefined ? { ...limits, queue: 0 } : limits,
  );
  if (entered.outcome === "start") return { id };
  if (entered.outcome === "queued") return { id, ahead: entered.ahead };
  throw payload === undefined
    ? new JobLimitError(limits.person)
    : new QueueFullError(limits.person, limits.queue);
}

/**
 * Runs a start that holds its running place `id`. Starts of one person run one at a time (a claim
 * in the store, so across processes too): budgets are checked and the job's cost recorded around
 * the start (spend/spending.ts), inside the claim, so one person's starts are priced in the order
 * they were made. The claim outlives a slow upload, and is held in this process's name: a process
 * killed mid-start does not hold the person's next command for the claim's two minutes, its
 * restart (or the lapse of its heartbeat) frees it. The start itself is on record meanwhile
 * (start-intents.ts), so that a crash before the job is tracked is told to the person rather than
 * left silent.
 *
 * Undefined when a cancel took the job first: no creation call is made. A start that fails gives
 * its place back (the next in the queue may start), unless its job was recorded: that one runs.
 */
export async function startInPlace<T>(
  core: Core,
  what: { command: string; actor: Actor; conversation: ConversationRef },
  id: string,
  start: (recorded: () => Promise<void>) => Promise<T>,
): Promise<T | undefined> {
  const { actor } = what;
  const key = `start:${actor.platform}:${actor.tenantId}:${actor.userId}`;
  // In the order their places were taken here; the claim orders them across processes.
  return core.turns.holding(id, () =>
    core.turns.inOrder(key, async () => {
      const { liveness } = core.engine;
      const from = core.claims.checkpoint();
      const deadline = Date.now() + START_WAIT_MS;
      try {
        while (!(await liveness.claim(key, START_CLAIM_MS))) {
          if (Date.now() >= deadline)
            throw new StoreError("store.busy", `${key} stayed locked for ${START_WAIT_MS} ms`);
          await sleep(50 + Math.random() * 50);
        }
      } catch (error) {
        await core.turns.refused(id, tenantOf(actor), error);
        throw error;
      }
      try {
        return await startHolding(core, what, { id, from }, start);
      } finally {
        await liveness.release(key);
      }
    }),
  );
}

/**
 * The start itself, its person's claim held: a cancel may still come first; the budget decides.
 * The claim, the reservation and the intent are held by a replica of the store (since `from`)
 * before the creation call: a failover then cannot forget that the start was made.
 */
async function startHolding<T>(
  core: Core,
  what: { command: string; actor: Actor; conversation: ConversationRef },
  { id, from }: { id: string; from: WriteCheckpoint },
  start: (recorded: () => Promise<void>) => Promise<T>,
): Promise<T | undefined> {
  const { liveness } = core.engine;
  // The one step a cancel races: whichever the store decides first wins, the other is told.
  if (!(await core.queue.calling(id, liveness.id))) return undefined;
  try {
    const result = await core.spending.around(what, async () => {
      const done = await core.starts.open(liveness.id, what);
      let forgotten: Promise<void> | undefined;
      // Once the job is on record a crash no longer leaves the start unknown: its takeover delivers it.
      const recorded = () =>
        (forgotten ??= done().catch((error: unknown) =>
          core.logger.warn({ err: error, command: what.command }, "finished start not forgotten"),
        ));
      try {
        await core.claims.replicated(from);
        return await start(recorded);
      } finally {
        await recorded();
      }
    });
    await core.queue.started(id);
    return result;
  } catch (error) {
    await core.turns.refused(id, tenantOf(what.actor), error);
    throw error;
  }
}

/**
 * A job the service accepted is recorded, then gets its message (queued), then the engine polls
 * it; a job whose outcome is already known (synchronous operations) is finished at once and
 * delivered like any other. The record comes first: a crash after the service's answer must not
 * forget a job whose credits are spent.
 *
 * A message that cannot be posted (the platform down, no access to the channel) must not lose
 * the job either: it is tracked without one, its outcome gets a post of its own, and the actor
 * is told privately that the job runs.
 */
export async function launch(
  core: Core,
  adapter: ChatAdapter,
  request: {
    command: string;
    started: StartedJob;
    actor: Actor;
    conversation: ConversationRef;
    /** Why the job shows where it does (meant private, in a tenant that forbids it): in its footer. */
    note?: string;
    /** The id its running place was taken under (takePlace). */
    id?: string;
    /** Its message while it waited its turn: it becomes the job's message. */
    message?: MessageRef;
    /** Called once the job is on record, before its message is posted. */
    recorded?: () => Promise<void>;
  },
): Promise<JobRecord> {
  const { command, started, actor, conversation, note, id, message } = request;
  // Every card of the job speaks its requester's language, kept with the job for the cards to come.
  const locale = readerLocale(actor);
  const title = typeof started.title === "string" ? started.title : translatorFor(locale).say(started.title);
  const view = { id: "", title, ...(note && { note }), locale };
  // Before the job is tracked: its result is read through the shared key's lists by this id.
  await despiteOutage(core.availability, () => core.remember(tenantOf(actor), [started.serviceJobId])).catch(
    (error: unknown) =>
      core.logger.warn({ err: error, serviceJobId: started.serviceJobId }, "job id not kept for its tenant"),
  );
  let why: string | undefined;
  const announce = async () => {
    await request.recorded?.();
    try {
      if (message) {
        await adapter.edit(message, queuedCard({ ...view, id: id ?? "" }));
        return message;
      }
      return await adapter.post(conversation, queuedCard(view));
    } catch (error) {
      // Not rethrown: the service has the job, and its credits, whatever the chat platform does.
      core.logger.warn({ err: error, command, serviceJobId: started.serviceJobId }, "job message not posted");
      why = error instanceof BotError ? error.userMessage : undefined;
      return undefined;
    }
  };
  let job: JobRecord;
  try {
    job = await core.engine.track(
      {
        ...(id && { id }),
        kind: started.kind,
        command,
        serviceJobId: started.serviceJobId,
        requester: actor,
        conversation,
        // A job that waited its turn has its message already: on record with it, a crash before the
        // message is edited still finds it, and posts nothing beside it.
        message: message ?? null,
        inputs: { ...started.inputs, title, ...(note && { note }), locale },
      },
      announce,
    );
  } catch (error) {
    await adapter.post(conversation, untrackedCard(view)).catch(() => undefined);
    throw error;
  }
  currentTap()?.tracked(job);
  jobTransitionsTotal.inc({ kind: job.kind, state: "queued" });
  if (!job.message) {
    // Best effort: the job is recorded whether or not the actor hears of it.
    await adapter
      .post(conversation, unpostedCard({ ...view, id: job.id }, why), { ephemeral: true })
      .catch((error: unknown) =>
        core.logger.warn({ err: error, jobId: job.id }, "notice of the unposted job not sent"),
      );
  }
  if (started.finished) await core.engine.finish(job.id, started.finished);
  return job;
}
