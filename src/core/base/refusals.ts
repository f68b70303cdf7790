import { command, msg } from "../i18n/msg.js";
import { BotError, type BotErrorOptions, type Said } from "./errors.js";

/**
 * The core's own refusals. Codes are grouped by family (the error card picks its title by
 * prefix): input.* the command was wrong, access.* the actor may not, limit.* too much at once,
 * setup.* the tenant is not configured, action.* a button that has nothing left to do.
 */

/** The command's options or files: says which and how to fix it. */
export class InputError extends BotError {
  constructor(
    readonly code: `input.${string}`,
    said: Said,
    options?: BotErrorOptions,
  ) {
    super(said, options);
  }
}

/** The people its message names are mentions on its card. */
export class AccessError extends BotError {
  constructor(
    readonly code: `access.${string}`,
    said: Said,
  ) {
    super(said);
  }
}

export class JobLimitError extends BotError {
  readonly code = "limit.jobs";
  constructor(limit: number) {
    super(msg("error.limit.jobs", { limit, jobs: command("jobs") }));
  }
}

/** A person's queue is full: the job past it is refused, nothing recorded. */
export class QueueFullError extends BotError {
  readonly code = "limit.queue";
  constructor(running: number, queued: number) {
    super(msg("refusal.limit.queue_full", { running, queued, jobs: command("jobs") }));
  }
}

export class SetupError extends BotError {
  constructor(
    readonly code: `setup.${string}`,
    said: Said,
    options?: { message?: string; cause?: unknown },
  ) {
    super(said, options);
  }
}

export class ActionError extends BotError {
  constructor(
    readonly code: `action.${string}`,
    said: Said,
    options: BotErrorOptions = {},
  ) {
    super(said, options);
  }
}

/**
 * Said to a person who is their own tenant: they can fix it themselves, in their DM with the bot.
 * Only Discord has such tenants (user installs), hence its command's syntax.
 */
export const noApiKey = (personal: boolean) =>
  new SetupError(
    "setup.no_key",
    personal ? msg("error.setup.no_own_key") : msg("error.setup.no_key", { setup: command("setup") }),
  );
