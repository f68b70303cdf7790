import { type Line, plainText } from "./cards.js";
import { BotError, type BotErrorOptions } from "./errors.js";

/**
 * The core's own refusals. Codes are grouped by family (the error card picks its title by
 * prefix): input.* the command was wrong, access.* the actor may not, limit.* too much at once,
 * setup.* the tenant is not configured, action.* a button that has nothing left to do.
 */

/** The command's options or files: says which and how to fix it. */
export class InputError extends BotError {
  constructor(
    readonly code: `input.${string}`,
    userMessage: string,
    options?: BotErrorOptions,
  ) {
    super(userMessage, options);
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
    super(
      `You already have ${limit} jobs running, the most one person can run at once. Wait for one to finish (see the jobs command), then try again.`,
    );
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
    userMessage: string,
    options?: { message?: string; cause?: unknown },
  ) {
    super(userMessage, options);
  }
}

export class ActionError extends BotError {
  constructor(
    readonly code: `action.${string}`,
    userMessage: string,
    options: BotErrorOptions = {},
  ) {
    super(userMessage, options);
  }
}

/**
 * Said to a person who is their own tenant: they can fix it themselves, in their DM with the bot.
 * Only Discord has such tenants (user installs), hence its command's syntax.
 */
const NO_OWN_KEY =
  "You have no media service API key of your own yet, and outside a server that added the bot your own key pays. In your DM with the bot, run /setup api_key:True and enter it (it is checked, then stored encrypted); or ask the bot's operator to let you use theirs.";

export const noApiKey = (personal: boolean) =>
  new SetupError(
    "setup.no_key",
    personal
      ? NO_OWN_KEY
      : "This server or workspace has no media service API key yet: an admin must run the setup command and enter one.",
  );
