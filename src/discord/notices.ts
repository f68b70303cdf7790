import { type Card, card } from "../core/base/cards.js";

/** What the adapter says itself, about Discord matters the core never sees. */

export const staleControlNotice: Card = card("Nothing to do", "warning", {
  lines: ["This control is from an older version of the bot and no longer works: run the command again."],
});

export const expiredFormNotice: Card = card("The form expired", "warning", {
  lines: [
    "The form was already sent, or stayed open too long, so its command was forgotten. Run the command again.",
  ],
});
