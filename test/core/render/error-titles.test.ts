import { describe, expect, it } from "vitest";
import { errorTitle } from "../../../src/core/render/errors.js";
import { codesFor, descendsFrom, sourceClasses } from "../../source-classes.js";

/** Every code a BotError can carry, read from the source, for every class that extends BotError. */

const FALLBACK = errorTitle("no.such_code");

describe("error titles", () => {
  const classes = sourceClasses();
  const botErrors = [...classes.keys()].filter((name) => descendsFrom(name, "BotError", classes));
  const where = (name: string) => `${name} (${classes.get(name)!.file})`;

  it("finds the bot's errors in the source, each concrete one with a code", () => {
    expect(botErrors).toEqual(
      expect.arrayContaining(["InputError", "ServiceFailureError", "UndeliverableError", "NotPostedError"]),
    );
    const withoutCode = botErrors.filter(
      (name) => !classes.get(name)!.abstract && codesFor(name, classes).length === 0,
    );
    expect(withoutCode.map(where)).toEqual([]);
  });

  it("gives every code a BotError can carry a title of its own, not the fallback", () => {
    const codes = botErrors.flatMap((name) =>
      classes.get(name)!.codes.map((code) => ({ code, of: where(name) })),
    );
    expect(codes.map((c) => c.code)).toEqual(
      expect.arrayContaining(["input.x", "service.failure", "chat.undeliverable", "limit.rate"]),
    );
    expect(codes.filter(({ code }) => errorTitle(code) === FALLBACK)).toEqual([]);
  });
});
