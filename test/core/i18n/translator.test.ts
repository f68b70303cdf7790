import { describe, expect, it } from "vitest";
import {
  NetworkError,
  RateLimitedError,
  ServiceFailureError,
  UploadFailedError,
} from "../../../src/core/base/errors.js";
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

describe("an error in the reader's language", () => {
  it("says the title and the sentence in German, the service's reason quoted as it came", () => {
    const t = translatorFor("de-DE");
    const failed = errorCard(new ServiceFailureError("prompt too long"), {}, t);
    expect(failed.title).toBe("Der Mediendienst hat abgelehnt");
    expect(failed.lines).toEqual([
      "Das konnte der Mediendienst nicht: prompt too long. Prüf die Optionen und versuch es noch einmal.",
    ]);
    expect(errorCard(new RateLimitedError(1000), {}, t).lines[0]).toContain("Warte 1 Sekunde und");
  });

  it("says Japanese without spaces between clauses and with a counter for seconds", () => {
    const t = translatorFor("ja");
    expect(errorCard(new RateLimitedError(30_000), {}, t).lines[0]).toBe(
      "メディアサービスへのリクエストが多すぎます。30 秒待ってからもう一度お試しください。",
    );
    expect(errorCard(new TypeError("boom"), { reference: "ab12cd34" }, t).footer).toBe("参照番号 ab12cd34");
  });
});
