import { withClaim } from "../../store/claims.js";
import type { JobRecord } from "../../store/jobs.js";
import type { StartedJob } from "../commands/define.js";
import { JobLimitError } from "../commands/errors.js";
import { BotError } from "../errors.js";
import { jobTransitionsTotal } from "../metrics.js";
import type { Actor, ChatAdapter, ConversationRef, MessageRef } from "../ports.js";
import { queuedCard, unpostedCard, untrackedCard } from "../render/job.js";
import type { Core } from "./core.js";

/**
 * A person's running jobs are capped, checked before any creation call. Starts of one person run
 * one at a time (a claim in the store, so across processes too): two commands sent together would
 * otherwise both count the same running jobs and both pass. The claim outlives a slow upload.
 */
export async function startWithinLimit<T>(core: Core, actor: Actor, start: () => Promise<T>): Promise<T> {
  const key = `start:${actor.platform}:${actor.tenantId}:${actor.userId}`;
  return withClaim(
    core.claims,
    key,
    async () => {
      if ((await core.engine.countActive(actor)) >= core.jobLimit) throw new JobLimitError(core.jobLimit);
      return start();
    },
    { ttlMs: 120_000, waitMs: 150_000 },
  );
}

/**
 * A job the service accepted gets its message (queued), then the engine tracks it; a job whose
 * outcome is already known (synchronous operations) is finished at once and delivered like any other.
 *
 * The credits are spent once the service has the job, so a message that cannot be posted (the
 * platform down, no access to the channel) must not lose it: the job is tracked without one, its
 * outcome gets a post of its own, and the actor is told privately that the job runs.
 */
export async function launch(
  core: Core,
  adapter: ChatAdapter,
  request: { command: string; started: StartedJob; actor: Actor; conversation: ConversationRef },
): Promise<JobRecord> {
  const { command, started, actor, conversation } = request;
  const view = { id: "", title: started.title };
  // Before the job is tracked: its result is read through the shared key's lists by this id.
  await core
    .remember({ platform: actor.platform, tenantId: actor.tenantId }, [started.serviceJobId])
    .catch((error: unknown) =>
      core.logger.warn({ err: error, serviceJobId: started.serviceJobId }, "job id not kept for its tenant"),
    );
  let message: MessageRef | undefined;
  let why: string | undefined;
  try {
    message = await adapter.post(conversation, queuedCard(view));
  } catch (error) {
    // Not rethrown: the service has the job, and its credits, whatever the chat platform does.
    core.logger.warn({ err: error, command, serviceJobId: started.serviceJobId }, "job message not posted");
    why = error instanceof BotError ? error.userMessage : undefined;
  }
  let job: JobRecord;
  try {
    job = await core.engine.track({
      kind: started.kind,
      command,
      serviceJobId: started.serviceJobId,
      requester: actor,
      conversation,
      message: message ?? null,
      inputs: { ...started.inputs, title: started.title },
    });
  } catch (error) {
    if (message) await adapter.edit(message, untrackedCard(view)).catch(() => undefined);
    throw error;
  }
  jobTransitionsTotal.inc({ kind: job.kind, state: "queued" });
  if (!message) {
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

/** The job's message, or undefined for a job launched without one. */
export function messageOf(job: Pick<JobRecord, "message">): MessageRef | undefined {
  return (job.message as unknown as MessageRef | null) ?? undefined;
}
