import { command, msg } from "../i18n/msg.js";
import { type Line, plainText } from "./cards.js";
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

/** `line` is the message as its card shows it, where the people it names are mentions. */
export class AccessError extends BotError {
  constructor(
    readonly code: `access.${string}`,
    readonly line: Line,
  ) {
    super(plainText(line));
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
    super(
      `You already have ${running} jobs running and ${queued} waiting, the most one person may queue. Cancel one (see the jobs command) or wait for one to start, then try again.`,
    );
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
