/**
 * `npm run register:discord`: registers the slash commands now, globally, or in the guild
 * DISCORD_GUILD_ID (instantly visible there). Reads DISCORD_TOKEN and DISCORD_REST_URL like the bot.
 * The bot also registers on start whenever the definitions changed; this is for a first setup
 * or a forced refresh.
 */
import { type APIApplication, REST, Routes } from "discord.js";
import { ConfigError, loadConfig } from "../core/config/config.js";
import { restOptions } from "./client.js";
import { registerCommands } from "./registration.js";

try {
  // Registration never calls the media service: its URL is not needed here.
  const config = loadConfig({ MEDIA_API_URL: "http://media.invalid", ...process.env });
  if (!config.discord) throw new ConfigError("DISCORD_TOKEN is required to register the Discord commands.");
  const { token, restUrl, guildId } = config.discord;
  const rest = new REST(restOptions({ restUrl })).setToken(token);
  const application = (await rest.get(Routes.currentApplication())) as APIApplication;
  const count = await registerCommands({ rest, applicationId: application.id, ...(guildId && { guildId }) });
  console.log(
    guildId
      ? `Registered ${count} commands (slash and message commands) in guild ${guildId}.`
      : `Registered ${count} commands (slash and message commands) globally (Discord may take up to an hour to show changes everywhere).`,
  );
} catch (error) {
  console.error(
    `Could not register the Discord commands: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
}
