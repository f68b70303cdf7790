import { describe, expect, it } from "vitest";
import { NetworkError, RateLimitedError, UploadFailedError } from "../../../src/core/base/errors.js";
import { InputError } from "../../../src/core/base/refusals.js";
import { command, msg } from "../../../src/core/i18n/msg.js";
import { english, translatorFor } from "../../../src/core/i18n/translator.js";
import { errorCard } from "../../../src/core/render/errors.js";

describe("the translator", () => {
  it("says plurals, lists and commands as English says them", () => {
    const t = english();
    expect(t.text("error.service.rate_limited_for", { seconds: 1 })).toContain("Wait 1 second and");
    expect(t.text("error.service.rate_limited_for", { seconds: 30 })).toContain("Wait 30 seconds and");
    expect(t.list(["a", "b", "c"])).toBe("a, b, and c");
    expect(t.say(msg("error.setup.no_key", { setup: command("setup") }))).toBe(
      "This server or workspace has no media service API key yet: an admin must run the setup command and enter one.",
    );
  });

  it("falls back to English for a language the bot does not speak", () => {
    expect(translatorFor("tlh").locale).toBe("en");
    expect(translatorFor(undefined).locale).toBe("en");
  });

  it("keeps an error's English message for the log and for what is stored with a job", () => {
    const lost = new NetworkError(new Error("ECONNRESET"), "POST /api/image/upload");
    const failed = new UploadFailedError("cat.png", lost);
    expect(failed.userMessage).toBe(
      `The file "cat.png" could not be uploaded to the media service, so nothing was created or charged. ${lost.userMessage}`,
    );
    expect(new RateLimitedError(1500).userMessage).toBe(
      "The media service is receiving too many requests. Wait 2 seconds and try again.",
    );
  });

  it("shows a refusal not yet in the catalogues as it was written", () => {
    expect(errorCard(new InputError("input.invalid_option", "seed must be a number.")).lines).toEqual([
      "seed must be a number.",
    ]);
  });
});
