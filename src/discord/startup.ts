import { StartupError } from "../core/config/startup.js";

/** Why logging in to Discord failed, as the operator's one line. */
export function loginFailure(error: unknown, restUrl: string): StartupError {
  const code = (error as { code?: unknown } | null)?.code;
  const status = (error as { status?: unknown } | null)?.status;
  if (code === "TokenInvalid" || code === "TokenMissing" || status === 401) {
    return new StartupError(
      "DISCORD_TOKEN was refused by Discord (invalid token). Copy the bot token again from the Developer Portal (Bot > Reset Token).",
      { cause: error },
    );
  }
  if (code === "DisallowedIntents") {
    return new StartupError(
      "Discord refused the bot's gateway intents. Check the Privileged Gateway Intents on the Developer Portal's Bot page.",
      { cause: error },
    );
  }
  const reason =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new StartupError(`Discord at ${restUrl} (DISCORD_REST_URL) could not be reached: ${reason}.`, {
    cause: error,
  });
}
