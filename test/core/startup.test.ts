import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config.js";
import { requireKeyPath } from "../../src/core/startup.js";

/** Whether some server or workspace could ever get an API key, decided before anything starts. */
function refusal(media: { apiKey?: string; apiKeyTenants: "*" | string[] }, secretsKey?: string) {
  try {
    requireKeyPath({ media, ...(secretsKey && { secretsKey }) });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe("requireKeyPath", () => {
  it("starts with a shared key that serves someone, or with SECRETS_KEY", () => {
    expect(refusal({ apiKey: "k", apiKeyTenants: "*" })).toBeUndefined();
    expect(refusal({ apiKey: "k", apiKeyTenants: ["123"] })).toBeUndefined();
    expect(refusal({ apiKeyTenants: [] }, "secret")).toBeUndefined();
  });

  it("refuses, naming both ways, when there is no key at all", () => {
    expect(refusal({ apiKeyTenants: [] })).toMatch(
      /^No API key can ever be used: set MEDIA_API_KEY .*SECRETS_KEY/,
    );
  });

  it("refuses a shared key that serves nobody, naming MEDIA_API_KEY_TENANTS", () => {
    expect(refusal({ apiKey: "k", apiKeyTenants: [] })).toMatch(
      /MEDIA_API_KEY_TENANTS \(or \*\), or set SECRETS_KEY/,
    );
  });
});
