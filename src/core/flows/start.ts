import { setTimeout as sleep } from "node:timers/promises";
import { StoreError } from "../../store/errors.js";
import type { JobRecord } from "../../store/jobs.js";
import { BotError, StoreAwayError } from "../base/errors.js";
import { jobTransitionsTotal } from "../base/metrics.js";
import type { Actor, ChatAdapter, ConversationRef } from "../base/ports.js";
import type { StartedJob } from "../commands/define.js";
import { JobLimitError } from "../commands/errors.js";
import { readerLocale } from "../i18n/locale.js";
import { despiteOutage } from "../jobs/despite-outage.js";
import { queuedCard, unpostedCard, untrackedCard } from "../render/job.js";
import { currentTap } from "../spend/tap.js";
import { tenantOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/** Bounds a start whose process lives but hangs (a slow upload); a crashed process's claim is free at once. */
const START_CLAIM_MS = 120_000;
const START_WAIT_MS = 150_000;

/**
 * A person's running jobs are capped, checked before any creation call. Starts of one person run
 * one at a time (a claim in the store, so across processes too): two commands sent together would
 * otherwise both count the same running jobs and both pass. The claim outlives a slow upload, and
 * is held in this process's name: a process killed mid-start does not hold the person's next
 * command for the claim's two minutes, its restart (or the lapse of its heartbeat) frees it.
 * The start itself is on record meanwhile (start-intents.ts), so that a crash before the job is
 * tracked is told to the person rather than left silent. Budgets are checked and the job's cost
 * recorded around the start (spend/spending.ts), inside the claim: one person's starts are priced
 * in the order they were made.
 */
export async function startWithinLimit<T>(
  core: Core,
  what: { command: string; actor: Actor; conversation: ConversationRef },
  start: () => Promise<T>,
): Promise<T> {
  const { actor } = what;
  // Known away: refused now, rather than after the claim's first try fails.
  if (!core.availability.available) throw new StoreAwayError();
  const key = `start:${actor.platform}:${actor.tenantId}:${actor.userId}`;
  const { liveness } = core.engine;
  const deadline = Date.now() + START_WAIT_MS;
  while (!(await liveness.claim(key, START_CLAIM_MS))) {
    if (Date.now() >= deadline)
      throw new StoreError("store.busy", `${key} stayed locked for ${START_WAIT_MS} ms`);
    await sleep(50 + Math.random() * 50);
  }
  try {
    if ((await core.engine.countActive(actor)) >= core.jobLimit) throw new JobLimitError(core.jobLimit);
    return await core.spending.around(what, async () => {
      const done = await core.starts.open(liveness.id, what);
      try {
        return await start();
      } finally {
        await done().catch((error: unknown) =>
          core.logger.warn({ err: error, command: what.command }, "finished start not forgotten"),
        );
      }
    });
  } finally {
    await liveness.release(key);
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
  },
): Promise<JobRecord> {
  const { command, started, actor, conversation, note } = request;
  // Every card of the job speaks its requester's language, kept with the job for the cards to come.
  const locale = readerLocale(actor);
  const view = { id: "", title: started.title, ...(note && { note }), locale };
  // Before the job is tracked: its result is read through the shared key's lists by this id.
  await despiteOutage(core.availability, () => core.remember(tenantOf(actor), [started.serviceJobId])).catch(
    (error: unknown) =>
      core.logger.warn({ err: error, serviceJobId: started.serviceJobId }, "job id not kept for its tenant"),
  );
  let why: string | undefined;
  const announce = async () => {
    try {
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
        kind: started.kind,
        command,
        serviceJobId: started.serviceJobId,
        requester: actor,
        conversation,
        message: null,
        inputs: { ...started.inputs, title: started.title, ...(note && { note }), locale },
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
