import { type BaseInteraction, PermissionFlagsBits } from "discord.js";
import type { Actor } from "../core/ports.js";

/**
 * Who acts, for the core: the guild is the tenant; Manage Guild (or Administrator, which
 * includes it) makes an admin; roles feed the tenant's allow-list.
 */
export function actorOf(interaction: BaseInteraction): Actor {
  const member = interaction.member;
  const roles = !member ? [] : Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
  return {
    platform: "discord",
    tenantId: interaction.guildId ?? "",
    userId: interaction.user.id,
    isAdmin: interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false,
    // The @everyone role has the guild's id and says nothing about the person.
    roleIds: roles.filter((id) => id !== interaction.guildId),
  };
}
