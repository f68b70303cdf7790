import { randomUUID } from "node:crypto";
import type { JobRecord } from "../../store/jobs.js";
import { commandByName } from "../commands/catalogue.js";
import type { StartedJob } from "../commands/define.js";
import { AccessError, ActionError } from "../commands/errors.js";
import { startMockupVideo } from "../commands/mockup.js";
import { ANIMATION_STYLES, type AnimationStyle } from "../commands/options.js";
import { ServiceError, ServiceFailureError } from "../errors.js";
import { choiceKey } from "../jobs/engine.js";
import type { ActionEvent, ChatAdapter } from "../ports.js";
import { confirmingCard } from "../render/job.js";
import { isAdmin } from "../tenancy.js";
import { admit } from "./admit.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";
import { viewOf } from "./results.js";
import { launch, messageOf, startWithinLimit } from "./start.js";

/**
 * Button and select clicks on a job's message. Every click gets an answer: the job changes, or
 * the clicker is told (only them) why nothing happened.
 */

/** Bounds a choice whose process lives but hangs; a crashed process's claim is free at once. */
const CHOICE_CLAIM_MS = 10 * 60_000;
/** Long enough to swallow a double click, short enough to allow a deliberate second try. */
const REPEAT_CLAIM_MS = 10_000;

type Handler = (core: Core, job: JobRecord, event: ActionEvent, adapter: ChatAdapter) => Promise<void>;

async function claimOrRefuse(core: Core, key: string, ttlMs: number, refusal: ActionError): Promise<string> {
  const owner = randomUUID();
  if (!(await core.claims.acquire(key, owner, ttlMs))) throw refusal;
  return owner;
}

/**
 * Keep 1, Keep 2 and Keep both: one claim per job, so only the first click of any of them reaches
 * the service. The confirm is paid and never repeated: from the moment it may be sent, the job
 * polls its status again if its answer is lost (or the process dies), and the status says what
 * the service did: the avatars, delivered once, or the variants, whose buttons then come back.
 */
const choose: Handler = async (core, job, event, adapter) => {
  const both = event.action === "confirm_both";
  const variant = both ? undefined : event.value === "1" ? 1 : event.value === "2" ? 2 : undefined;
  if (!both && variant === undefined)
    throw new ActionError("action.invalid", "That is not a variant of this job.");
  const finished = new ActionError(
    "action.finished",
    job.state === "done"
      ? "A variant was already kept for this job: the avatar ids are in its message."
      : "This job is not waiting for a choice any more.",
  );
  if (job.state !== "needs_choice") throw finished;
  const key = choiceKey(job.id);
  if (!(await core.engine.liveness.claim(key, CHOICE_CLAIM_MS))) {
    throw new ActionError(
      "action.choosing",
      "A choice for these variants is already being made: the message updates in a moment.",
    );
  }
  try {
    const choosing = await core.engine.beginChoice(job.id);
    if (!choosing) throw finished;
    // A job launched without a message showed its variants in a post of their own, which keeps its
    // buttons: a second click there is refused by the job's state, and the outcome gets a post too.
    const message = messageOf(job);
    // Cosmetic: the buttons go while the choice is made; the choice does not depend on it.
    if (message) {
      await adapter
        .edit(message, confirmingCard(viewOf(job), both ? "both variants" : `variant ${variant}`))
        .catch((error: unknown) => core.logger.warn({ err: error, jobId: job.id }, "choice not shown"));
    }
    let avatarIds: string[];
    try {
      const media = await core.media(job.tenant);
      avatarIds = both
        ? (await media.photoAvatars.confirmBoth({ jobId: job.serviceJobId })).avatarIds
        : [(await media.photoAvatars.confirm({ jobId: job.serviceJobId, variant: variant! })).avatarId];
    } catch (error) {
      await core.engine.resume(job.id);
      if (answered(error)) throw error;
      throw new ActionError(
        "action.choice_unconfirmed",
        "The media service did not say whether it kept your choice. The bot is reading the job's status: the avatar, or the variants to choose again, appear in the job's message in a moment. Do not pay for a new design meanwhile.",
        { cause: error },
      );
    }
    await core.engine.finish(job.id, {
      state: "done",
      progress: 100,
      terminal: true,
      result: { kind: "photo_avatar", avatarIds },
    });
  } finally {
    await core.engine.liveness.release(key);
  }
};

/**
 * The service answered with an error status or its failure envelope: the error says what went
 * wrong. Without an answer (a timeout, a dropped connection, an unreadable body) nobody knows.
 */
function answered(error: unknown): boolean {
  if (error instanceof ServiceFailureError) return true;
  return error instanceof ServiceError && error.status !== undefined && error.status >= 400;
}

const regenerate: Handler = async (core, job, event, adapter) => {
  const again = commandByName(job.command)?.regenerate;
  if (!again) throw new ActionError("action.invalid", "This result cannot be regenerated.");
  if (job.state !== "done")
    throw new ActionError("action.not_ready", "Regenerate works once the result is finished.");
  await claimOrRefuse(
    core,
    `regenerate:${job.id}`,
    REPEAT_CLAIM_MS,
    new ActionError("action.repeated", "Already regenerating: the new result appears in a new message."),
  );
  await startWithinLimit(core, event.actor, async () => {
    const started = await again(await core.media(job.tenant), job.inputs as StartedJob["inputs"]);
    await launch(core, adapter, {
      command: job.command,
      started,
      actor: event.actor,
      conversation: event.conversation,
    });
  });
};

const animate: Handler = async (core, job, event, adapter) => {
  const style = ANIMATION_STYLES.find((s) => s === event.value) as AnimationStyle | undefined;
  const inputs = job.inputs as { mockupId?: unknown; instruction?: unknown };
  if (job.command !== "mockup.generate" || typeof inputs.mockupId !== "string") {
    throw new ActionError("action.invalid", "Only a generated mockup can be animated.");
  }
  if (!style) throw new ActionError("action.invalid", "Choose one of the animation styles.");
  await claimOrRefuse(
    core,
    `animate:${job.id}:${style}`,
    REPEAT_CLAIM_MS,
    new ActionError("action.repeated", "This animation is already being made: it appears in a new message."),
  );
  const mockupId = inputs.mockupId;
  await startWithinLimit(core, event.actor, async () => {
    const started = await startMockupVideo(await core.media(job.tenant), {
      mockupId,
      style,
      ...(style === "custom" && typeof inputs.instruction === "string" && { prompt: inputs.instruction }),
    });
    await launch(core, adapter, {
      command: "mockup.video",
      started,
      actor: event.actor,
      conversation: event.conversation,
    });
  });
};

const HANDLERS: Record<string, Handler> = { confirm: choose, confirm_both: choose, regenerate, animate };

export async function handleAction(core: Core, event: ActionEvent): Promise<void> {
  const adapter = core.adapter(event.actor.platform);
  try {
    const settings = await admit(core, {
      kind: event.entry ?? "button",
      actor: event.actor,
      conversation: event.conversation,
    });
    const job = await core.engine.get(event.jobId);
    if (
      !job ||
      job.tenant.tenantId !== event.actor.tenantId ||
      job.tenant.platform !== event.actor.platform
    ) {
      throw new ActionError(
        "action.unknown_job",
        "The bot no longer knows this job (finished jobs are kept for 30 days). Run the command again.",
      );
    }
    if (job.requester.userId !== event.actor.userId && !isAdmin(event.actor, settings)) {
      throw new AccessError("access.not_requester", [
        "Only ",
        { userId: job.requester.userId },
        ", who started this job, or an admin can use its buttons.",
      ]);
    }
    const handler = HANDLERS[event.action];
    if (!handler)
      throw new ActionError(
        "action.invalid",
        "This button is from an older version of the bot: run the command again.",
      );
    await handler(core, job, event, adapter);
  } catch (error) {
    const card = await failureCard(error, {
      media: await core
        .media({ platform: event.actor.platform, tenantId: event.actor.tenantId })
        .catch(() => undefined),
      logger: core.logger,
      context: { action: event.action, jobId: event.jobId },
    });
    await adapter
      .post(event.conversation, card, { ephemeral: true })
      .catch((cause: unknown) => core.logger.error({ err: cause, action: event.action }, "could not answer"));
  }
}
