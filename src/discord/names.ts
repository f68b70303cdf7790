import {
  type APIChannel,
  type APIGuildMember,
  type APIRole,
  type APIUser,
  type REST,
  Routes,
} from "discord.js";
import type { NameRef } from "../core/base/ports.js";

/**
 * Who people, roles and channels are, through the bot's token (`ChatAdapter.names`, kept a while
 * by the core), and which roles a member has now (`ChatAdapter.rolesOf`, for a click in a DM,
 * which Discord sends without the server's roles). A person is named as the server shows them
 * (their nickname, else their display name, else their username); a role by its name, all of a
 * server's roles in one call; a channel by its name. In a person's own tenant (a user install)
 * there is no server: people and channels the bot can see are named, the rest shown by id.
 * What Discord refuses (gone, out of the bot's sight) is left out.
 */

/** Calls at once: Discord's per-route buckets take a few, the global limit 50 a second. */
const AT_ONCE = 4;

const userName = (user: Pick<APIUser, "global_name" | "username"> | undefined) =>
  user?.global_name || user?.username || undefined;

export class DiscordNames {
  constructor(private readonly rest: REST) {}

  async names(guildId: string, refs: readonly NameRef[]): Promise<ReadonlyMap<string, string>> {
    const found = new Map<string, string>();
    const roles = refs.some((ref) => ref.kind === "role")
      ? ((await this.rest.get(Routes.guildRoles(guildId)).catch(() => [])) as APIRole[])
      : [];
    const lookups = refs.map((ref) => async () => {
      const name = await this.nameOf(guildId, ref, roles).catch(() => undefined);
      if (name) found.set(`${ref.kind}:${ref.id}`, name);
    });
    for (let start = 0; start < lookups.length; start += AT_ONCE) {
      await Promise.all(lookups.slice(start, start + AT_ONCE).map((lookup) => lookup()));
    }
    return found;
  }

  /** The member's roles in the guild, without @everyone (the guild's own id). */
  async rolesOf(guildId: string, userId: string): Promise<string[]> {
    const member = (await this.rest.get(Routes.guildMember(guildId, userId))) as APIGuildMember;
    return member.roles.filter((id) => id !== guildId);
  }

  private async nameOf(
    guildId: string,
    ref: NameRef,
    roles: readonly APIRole[],
  ): Promise<string | undefined> {
    switch (ref.kind) {
      case "role":
        return roles.find((role) => role.id === ref.id)?.name;
      case "channel": {
        const channel = (await this.rest.get(Routes.channel(ref.id))) as APIChannel;
        return "name" in channel && channel.name ? channel.name : undefined;
      }
      case "user": {
        const member = (await this.rest.get(Routes.guildMember(guildId, ref.id)).catch(() => undefined)) as
          | APIGuildMember
          | undefined;
        if (member?.nick) return member.nick;
        return userName(member?.user ?? ((await this.rest.get(Routes.user(ref.id))) as APIUser));
      }
    }
  }
}
