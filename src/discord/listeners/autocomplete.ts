import type { AutocompleteInteraction } from "discord.js";
import { catalogueName } from "../commands.js";
import type { Gesture } from "../gesture.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { cut } from "../render/text.js";
import type { Listening } from "./context.js";

/** A search in a command's option: answered at once from the core's cached lists; Discord allows no defer here. */
export async function autocomplete(
  ctx: Listening,
  i: AutocompleteInteraction,
  gesture: Gesture,
): Promise<void> {
  const focused = i.options.getFocused(true);
  const choices = await ctx.bot.handleAutocomplete({
    command: catalogueName(i.commandName, i.options.getSubcommand(false)),
    option: focused.name,
    query: String(focused.value),
    actor: gesture.actor,
    conversation: { platform: "discord", channelId: gesture.channelId },
  });
  await i.respond(
    choices
      .filter((c) => c.value.length <= L.choiceValue)
      .slice(0, L.autocompleteChoices)
      .map((c) => ({ name: cut(c.label, L.choiceName) || c.value, value: c.value })),
  );
}
