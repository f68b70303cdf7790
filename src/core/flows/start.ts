import { withClaim } from "../../store/claims.js";
import type { JobRecord } from "../../store/jobs.js";
import type { StartedJob } from "../commands/define.js";
import { JobLimitError } from "../commands/errors.js";
import type { Actor, ChatAdapter, ConversationRef } from "../ports.js";
import { queuedCard, untrackedCard } from "../render/job.js";
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
 */
export async function launch(
  core: Core,
  adapter: ChatAdapter,
  request: { command: string; started: StartedJob; actor: Actor; conversation: ConversationRef },
): Promise<JobRecord> {
  const { command, started, actor, conversation } = request;
  const view = { id: "", title: started.title };
  const message = await adapter.post(conversation, queuedCard(view));
  let job: JobRecord;
  try {
    job = await core.engine.track({
      kind: started.kind,
      command,
      serviceJobId: started.serviceJobId,
      requester: actor,
      conversation,
      message,
      inputs: { ...started.inputs, title: started.title },
    });
  } catch (error) {
    await adapter.edit(message, untrackedCard(view)).catch(() => undefined);
    throw error;
  }
  if (started.finished) await core.engine.finish(job.id, started.finished);
  return job;
}
