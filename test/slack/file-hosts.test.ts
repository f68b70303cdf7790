import { describe, expect, it } from "vitest";
import { mayCarryToken } from "../../src/slack/file-hosts.js";

/** The bot token goes with a file download only to Slack's file hosts (and SLACK_API_URL's host). */
describe("where the bot token may go", () => {
  const api = "https://slack.com/api/";

  it.each([
    "https://files.slack.com/files-pri/T1-F1/download/fox.png",
    "https://files.slack-gov.com/files-pri/T1-F1/fox.png",
  ])("to %s", (url) => {
    expect(mayCarryToken(url, api)).toBe(true);
  });

  it.each([
    "https://evil.example.com/files-pri/T1-F1/fox.png",
    "https://files.slack.com.evil.example/fox.png",
    "http://files.slack.com/files-pri/T1-F1/fox.png",
    "https://slack.com.evil.example/x",
    "http://169.254.169.254/latest/meta-data",
    "not a url",
  ])("not to %s", (url) => {
    expect(mayCarryToken(url, api)).toBe(false);
  });

  it("to the host of SLACK_API_URL (a proxy, the fake), with its scheme and port only", () => {
    const fake = "http://127.0.0.1:4567/api/";
    expect(mayCarryToken("http://127.0.0.1:4567/files/F1/fox.png", fake)).toBe(true);
    expect(mayCarryToken("http://127.0.0.1:9999/files/F1/fox.png", fake)).toBe(false);
  });
});
