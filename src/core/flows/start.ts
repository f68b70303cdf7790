import type { JobRecord } from "../../store/jobs.js";
import type { StartedJob } from "../commands/define.js";
import { JobLimitError } from "../commands/errors.js";
import type { Actor, ChatAdapter, ConversationRef } from "../ports.js";
import { queuedCard, untrackedCard } from "../render/job.js";
import type { Core } from "./core.js";

/** Before any creation call: a person's running jobs are capped. */
export async function checkJobLimit(core: Core, actor: Actor): Promise<void> {
  if ((await core.engine.countActive(actor)) >= core.jobLimit) throw new JobLimitError(core.jobLimit);
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
