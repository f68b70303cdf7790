import type { HomeView, KnownBlock } from "@slack/types";
import type { Card } from "../../core/base/cards.js";
import { english, type Translator } from "../../core/i18n/translator.js";
import { SLACK_LIMITS as L } from "../limits.js";
import { renderMessage } from "./card.js";

/**
 * A person's App Home tab: the core's cards one under the other, divided, rendered as messages
 * are (their selects and buttons route like any other control). A Home holds 100 blocks; what
 * says so is in its person's language (`t`).
 */
export function homeView(cards: readonly Card[], t: Translator = english()): HomeView {
  const blocks: KnownBlock[] = cards.flatMap((card, i) => [
    ...(i > 0 ? [{ type: "divider" } as const] : []),
    ...renderMessage(card).blocks,
  ]);
  const cut: KnownBlock = {
    type: "context",
    elements: [{ type: "mrkdwn", text: t.text("home.cut") }],
  };
  return {
    type: "home",
    blocks: blocks.length <= L.viewBlocks ? blocks : [...blocks.slice(0, L.viewBlocks - 1), cut],
  };
}
