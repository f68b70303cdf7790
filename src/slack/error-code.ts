/** The `error` of a Web API refusal ("not_in_channel", "message_not_found", ...), or "undefined". */
export function slackErrorCode(error: unknown): string {
  return String((error as { data?: { error?: unknown } }).data?.error);
}
