import type { Issue } from "./validate.js";

/** Discord's nested error tree: `{field: {0: {field: {_errors: [{code, message}]}}}}`. */
export type ErrorDetails = { [key: string]: ErrorDetails } | { _errors: { code: string; message: string }[] };

/** Why a body was refused: a discord-api-spec schema, or a Discord rule the schema cannot express. */
export interface Rejection {
  kind: "schema" | "rule";
  schema?: string;
  issues: Issue[];
}

/** Discord's error envelope: `{message, code, errors?}` with an HTTP status. */
export class DiscordHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: ErrorDetails,
    readonly rejection?: Rejection,
  ) {
    super(message);
  }

  body(): { message: string; code: number; errors?: ErrorDetails } {
    const { message, code, errors } = this;
    return errors ? { message, code, errors } : { message, code };
  }
}

export const errors = {
  unauthorized: () => new DiscordHttpError(401, 0, "401: Unauthorized"),
  notFound: () => new DiscordHttpError(404, 0, "404: Not Found"),
  unknownChannel: () => new DiscordHttpError(404, 10003, "Unknown Channel"),
  unknownGuild: () => new DiscordHttpError(404, 10004, "Unknown Guild"),
  unknownMember: () => new DiscordHttpError(404, 10007, "Unknown Member"),
  unknownMessage: () => new DiscordHttpError(404, 10008, "Unknown Message"),
  unknownUser: () => new DiscordHttpError(404, 10013, "Unknown User"),
  unknownWebhook: () => new DiscordHttpError(404, 10015, "Unknown Webhook"),
  unknownInteraction: () => new DiscordHttpError(404, 10062, "Unknown interaction"),
  unknownCommand: () => new DiscordHttpError(404, 10063, "Unknown application command"),
  alreadyAcknowledged: () => new DiscordHttpError(400, 40060, "Interaction has already been acknowledged."),
  tooLarge: () => new DiscordHttpError(413, 40005, "Request entity too large"),
  invalidWebhookToken: () => new DiscordHttpError(401, 50027, "Invalid Webhook Token"),
  missingAccess: () => new DiscordHttpError(403, 50001, "Missing Access"),
  missingPermissions: () => new DiscordHttpError(403, 50013, "Missing Permissions"),
  otherUsersMessage: () => new DiscordHttpError(403, 50005, "Cannot edit a message authored by another user"),
  // Discord documents the cap, not its error: status and message are the fake's own guess.
  tooManyFollowups: () => new DiscordHttpError(400, 0, "Maximum number of followup messages reached (5)"),
  invalidJson: () => new DiscordHttpError(400, 50109, "The request body contains invalid JSON."),
  emptyMessage: () =>
    new DiscordHttpError(400, 50006, "Cannot send an empty message", undefined, {
      kind: "rule",
      issues: [{ path: "", message: "no content, embeds, components, poll or files" }],
    }),
};
