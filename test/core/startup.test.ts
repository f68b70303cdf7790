import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config/config.js";
import { isExplained, requireKeyPath, startupLine } from "../../src/core/config/startup.js";
import { Liveness } from "../../src/core/jobs/liveness.js";
import { openStores } from "../../src/store/index.js";

/** Whether some server or workspace could ever get an API key, decided before anything starts. */
function refusal(media: { apiKey?: string; apiKeyTenants: string[] }, secretsKey?: string) {
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
    expect(refusal({ apiKey: "k", apiKeyTenants: ["*"] })).toBeUndefined();
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

describe("startupLine", () => {
  it("says in one line that an INSTANCE_ID is taken by a live process, as the operator must fix it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "startup-"));
    const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`);
    const instance = (explicit: boolean) =>
      new Liveness({
        ...stores,
        instanceId: "pod-0",
        explicit,
        heartbeatMs: 100,
        lapseMs: 400,
        logger: pino({ level: "silent" }),
      });
    const live = instance(true);
    try {
      await live.start();
      const refused = await instance(true)
        .start()
        .catch((error: unknown) => error);
      expect(isExplained(refused)).toBe(true);
      expect(startupLine(refused)).toBe(
        `Cannot start: INSTANCE_ID "pod-0" is in use by a live process (pid ${process.pid} on ${hostname()}): give each instance its own INSTANCE_ID.`,
      );
    } finally {
      await live.stop({ handBack: true });
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
