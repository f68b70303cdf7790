import { type BaseInteraction, InteractionContextType } from "discord.js";

/**
 * Where an interaction came from, as far as the bot's reach and whose key pays go. Read from the
 * payload alone, never by trying the channel: a refused call counts towards Discord's limit on
 * invalid requests. Discord's rules (interaction structure, `authorizing_integration_owners`):
 * key "0" holds the guild's id when the server added the bot ("0" in the DM with the bot), key "1"
 * the id of the person whose own install the interaction came through.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object
 *
 * - "server": a server that added the bot. It is the tenant, with its key and its admins' rules.
 * - "dm": the person's DM with the bot, where the bot token posts too. The person is the tenant.
 * - "elsewhere": a server without the bot (a user install) or a group DM. The person is the
 *   tenant, and only the interaction's own webhook reaches the channel, for its 15 minutes.
 */
export type Place = "server" | "dm" | "elsewhere";

export type PlaceInfo = Pick<BaseInteraction, "guildId" | "context"> & {
  authorizingIntegrationOwners: { guildId: string | null };
};

export function placeOf(interaction: PlaceInfo): Place {
  const { guildId, context } = interaction;
  if (guildId) return interaction.authorizingIntegrationOwners.guildId === guildId ? "server" : "elsewhere";
  return context === InteractionContextType.PrivateChannel ? "elsewhere" : "dm";
}
