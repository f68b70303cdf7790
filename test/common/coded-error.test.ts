import { describe, expect, it } from "vitest";
import { CodedError } from "../../src/common/coded-error.js";
import { InputError } from "../../src/core/base/refusals.js";
import { ConfigError } from "../../src/core/config/config.js";
import { StartupError } from "../../src/core/config/startup.js";
import { StoreError } from "../../src/store/errors.js";
import { SecretsError } from "../../src/store/secrets.js";
import { codesFor, descendsFrom, sourceClasses } from "../source-classes.js";

describe("one root for every error", () => {
  const classes = sourceClasses();

  it("lets no class of src extend Error but the root, so every error class has a code", () => {
    const direct = [...classes].filter(([, c]) => c.base === "Error").map(([name]) => name);
    expect(direct).toEqual(["CodedError"]);
    const errors = [...classes.keys()].filter((name) => descendsFrom(name, "CodedError", classes));
    expect(errors).toEqual(expect.arrayContaining(["BotError", "StoreError", "SecretsError", "ConfigError"]));
    const withoutCode = errors.filter(
      (name) => !classes.get(name)!.abstract && codesFor(name, classes).length === 0,
    );
    expect(withoutCode).toEqual([]);
  });

  it("keeps each error's code, message and name as operators read them", () => {
    const errors = [
      new StoreError("store.unavailable", "redis is away"),
      new SecretsError("secrets.no_key", "SECRETS_KEY is not set"),
      new ConfigError("DISCORD_TOKEN is missing"),
      new StartupError("the media service did not answer"),
      new InputError("input.invalid_option", "seed must be a number."),
    ];
    expect(errors.map((e) => [e.code, e.name, e.message])).toEqual([
      ["store.unavailable", "StoreError", "redis is away"],
      ["secrets.no_key", "SecretsError", "SECRETS_KEY is not set"],
      ["config.invalid", "ConfigError", "DISCORD_TOKEN is missing"],
      ["startup.failed", "StartupError", "the media service did not answer"],
      ["input.invalid_option", "InputError", "seed must be a number."],
    ]);
    for (const error of errors) expect(error).toBeInstanceOf(CodedError);
  });
});
