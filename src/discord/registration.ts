import { type REST, Routes } from "discord.js";
import type Keyv from "keyv";
import type { Logger } from "../core/base/log.js";
import { definitionsHash, registeredCommands } from "./commands.js";

/**
 * Registration of the slash commands: global (up to an hour to reach every server), or in one
 * guild (at once; DISCORD_GUILD_ID, for development). A bulk overwrite, so commands removed from
 * the catalogue disappear from Discord too.
 */

export interface RegistrationTarget {
  rest: REST;
  applicationId: string;
  guildId?: string;
}

function route({ applicationId, guildId }: RegistrationTarget) {
  return guildId
    ? Routes.applicationGuildCommands(applicationId, guildId)
    : Routes.applicationCommands(applicationId);
}

/** Registers the catalogue's commands and the message commands; resolves with how many there are. */
export async function registerCommands(target: RegistrationTarget): Promise<number> {
  const commands = registeredCommands();
  await target.rest.put(route(target), { body: commands });
  return commands.length;
}

/**
 * On start: registers only when the definitions changed since the last registration this store
 * remembers, since Discord limits command updates (200 a day per guild) and global changes take time.
 */
export async function registerIfChanged(
  target: RegistrationTarget & { store: Keyv<unknown>; logger: Logger },
): Promise<boolean> {
  const hash = definitionsHash(registeredCommands());
  const key = `commands:${target.applicationId}:${target.guildId ?? "global"}`;
  if ((await target.store.get(key)) === hash) return false;
  const count = await registerCommands(target);
  await target.store.set(key, hash);
  target.logger.info({ count, guildId: target.guildId ?? "global" }, "Discord: commands registered");
  return true;
}
