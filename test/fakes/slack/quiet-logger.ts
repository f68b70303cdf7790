import { type Logger, LogLevel } from "@slack/bolt";

/** WebClient logs Slack's `[ERROR]` response_metadata lines; the refusals the fake's tests ask for are expected. */
export const quiet: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};
