import { type Card, card } from "../core/cards.js";

/** What the adapter says itself, about Discord matters the core never sees. */

export const dmNotice: Card = card("Use the bot in a server", "info", {
  lines: [
    "The media commands work in the channels of a server the bot was added to, where the server's admins set it up and its API key pays for the work. Run them there.",
  ],
});

export const staleControlNotice: Card = card("Nothing to do", "warning", {
  lines: ["This control is from an older version of the bot and no longer works: run the command again."],
});

export const expiredFormNotice: Card = card("The form expired", "warning", {
  lines: [
    "The form was already sent, or stayed open too long, so its command was forgotten. Run the command again.",
  ],
});
