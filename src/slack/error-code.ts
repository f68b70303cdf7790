/** The `error` of a Web API refusal ("not_in_channel", "message_not_found", ...); none when Slack did not answer. */
export function slackErrorCode(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === "string" ? code : undefined;
}
