import type { Interaction } from "discord.js";
import type { Logger } from "../../core/base/log.js";
import type { Bot } from "../../core/bot.js";
import { FairQueue } from "../../core/intake/fair-queue.js";
import type { Intake } from "../../core/intake/intake.js";
import type { DiscordAdapter } from "../adapter.js";
import { gestureOf } from "../gesture.js";
import type { PendingForms } from "../pending-forms.js";
import { autocomplete } from "./autocomplete.js";
import { messageCommand, slashCommand } from "./commands.js";
import { clicked, selected } from "./components.js";
import type { Listening } from "./context.js";
import { formSubmitted } from "./modals.js";

/**
 * Interactions in, core events out. Each reads its gesture once (gesture.ts) and goes to the
 * listener of its kind, which gives Discord its first response before anything else (a defer, or
 * a modal), since an interaction not answered within 3 s is dead; the core's work then waits in a
 * queue, so a burst of commands cannot delay the acknowledgements of the ones still arriving.
 */

export interface InteractionHandlerOptions {
  bot: Pick<Bot, "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm" | "formLocale">;
  adapter: DiscordAdapter;
  forms: PendingForms;
  logger: Logger;
  /** The bot's HTTP requests: the work behind the acks waits while a burst of them arrives. */
  intake?: Intake;
}

export interface InteractionHandler {
  /** The gateway's and POST /discord/interactions' one entry: resolves once Discord has the first response. */
  handle(interaction: Interaction): Promise<void>;
  /** Resolves once the queued work is done. */
  idle(): Promise<void>;
}

/** Commands and clicks the core works on at once (as many as Slack's side), one per person at most. */
const CONCURRENT_WORK = 16;

export function createInteractionHandler(options: InteractionHandlerOptions): InteractionHandler {
  const { bot, adapter, forms, logger } = options;
  const work = new FairQueue(CONCURRENT_WORK, options.intake);
  const ctx: Listening = {
    bot,
    adapter,
    forms,
    later(gesture, what, task) {
      work.add(gesture.lane, task).catch((error: unknown) => logger.error({ err: error }, `${what} failed`));
    },
  };
  return {
    async handle(i) {
      try {
        const gesture = gestureOf(i, adapter);
        if (i.isChatInputCommand()) await slashCommand(ctx, i, gesture);
        else if (i.isMessageContextMenuCommand()) await messageCommand(ctx, i, gesture);
        else if (i.isAutocomplete()) await autocomplete(ctx, i, gesture);
        else if (i.isModalSubmit()) await formSubmitted(ctx, i, gesture);
        else if (i.isButton()) await clicked(ctx, i, gesture);
        else if (i.isStringSelectMenu()) await selected(ctx, i, gesture);
      } catch (error) {
        // Mostly a first response that came too late (10062): nothing can reach the user any more.
        logger.warn({ err: error, interactionId: i.id }, "interaction not answered");
      }
    },
    idle: () => work.onIdle(),
  };
}
