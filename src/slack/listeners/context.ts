import type { Logger } from "../../core/base/log.js";
import type { Bot } from "../../core/bot.js";
import type { Actors } from "../actors.js";
import type { SlackAdapter } from "../adapter.js";
import type { Gesture } from "../gesture.js";
import type { SlackInstallations } from "../installations.js";
import type { Workspaces } from "../workspaces.js";

/**
 * What every listener works with, as Bolt's listeners get their `client` and `context`: the core,
 * the adapter, who people are, and the two things each gesture goes through before its work, the
 * check for Slack's redelivery and the fair queue behind the acks.
 */
export interface Listening {
  bot: Pick<
    Bot,
    "handleCommand" | "handleAction" | "handleAutocomplete" | "actionForm" | "openHome" | "formLocale"
  >;
  adapter: SlackAdapter;
  actors: Actors;
  workspaces: Workspaces;
  /** With OAuth: the workspaces' installations, which an uninstall removes. */
  installations?: SlackInstallations;
  logger: Logger;
  /** True for the first delivery of the gesture at whichever replica, false for Slack's copies of it (recent.ts). */
  first(gesture: Gesture): Promise<boolean>;
  /** The core's work behind the ack, in the person's lane of the fair queue. */
  later(who: { teamId: string; userId: string }, task: () => Promise<void>): Promise<void>;
}
