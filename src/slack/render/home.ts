import type { HomeView, KnownBlock } from "@slack/types";
import type { Card } from "../../core/base/cards.js";
import { SLACK_LIMITS as L } from "../limits.js";
import { renderMessage } from "./card.js";

/**
 * A person's App Home tab: the core's cards one under the other, divided, rendered as messages
 * are (their selects and buttons route like any other control). A Home holds 100 blocks.
 */
export function homeView(cards: readonly Card[]): HomeView {
  const blocks: KnownBlock[] = cards.flatMap((card, i) => [
    ...(i > 0 ? [{ type: "divider" } as const] : []),
    ...renderMessage(card).blocks,
  ]);
  const cut: KnownBlock = {
    type: "context",
    elements: [{ type: "mrkdwn", text: "The rest is longer than a Home tab can show." }],
  };
  return {
    type: "home",
    blocks: blocks.length <= L.viewBlocks ? blocks : [...blocks.slice(0, L.viewBlocks - 1), cut],
  };
}
