import { type BaseInteraction, PermissionFlagsBits } from "discord.js";
import type { Actor } from "../core/base/ports.js";
import { placeOf } from "./places.js";

/**
 * Who acts, for the core. In a server that added the bot, the guild is the tenant: Manage Guild
 * (or Administrator, which includes it) makes an admin, and roles feed the tenant's allow-list.
 * Anywhere else (the DM with the bot, a group DM, a server without the bot) the person is their
 * own tenant, under their own id, and so its admin; a server's roles say nothing there.
 */
export function actorOf(interaction: BaseInteraction): Actor {
  const userId = interaction.user.id;
  // Every interaction says the language of the person's client; one from a server, the server's.
  const locales = {
    locale: interaction.locale,
    ...(interaction.guildLocale && { placeLocale: interaction.guildLocale }),
  };
  if (placeOf(interaction) !== "server") {
    return { platform: "discord", tenantId: userId, userId, isAdmin: true, roleIds: [], ...locales };
  }
  const member = interaction.member;
  const roles = !member ? [] : Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
  return {
    platform: "discord",
    tenantId: interaction.guildId ?? "",
    userId,
    isAdmin: interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false,
    // The @everyone role has the guild's id and says nothing about the person.
    roleIds: roles.filter((id) => id !== interaction.guildId),
    ...locales,
  };
}
