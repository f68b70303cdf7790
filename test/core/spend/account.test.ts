import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMediaClient, type MediaClient } from "../../../src/core/api/index.js";
import { AccountReadings, VIEW_MAX_AGE_MS } from "../../../src/core/spend/account.js";
import { type Emulator, startEmulator } from "../../fakes/media-api/index.js";

/**
 * The account's figures as the bot reads them, against the media API emulator, on a clock the
 * test moves: views of the account read it at most once per key every 30 s, and starts asking at
 * once share one probe.
 */

let emu: Emulator;
let client: MediaClient;
beforeAll(async () => {
  emu = await startEmulator();
  client = createMediaClient({ baseUrl: emu.url, timeoutMs: 5_000 });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

const usageCalls = () => emu.calls.filter((c) => c.method === "GET" && c.path === "/api/usage").length;

describe("views of the account", () => {
  it("read it at most once every 30 s per key, whoever asks; a key of its own is read on its own", async () => {
    let now = 1_000_000;
    const readings = new AccountReadings(() => now);
    const media = client.as("test-key");
    const before = usageCalls();

    const first = await readings.recent("key-a", media);
    expect(first.credits_used).toBe(emu.account("test-key").creditsUsed);
    for (let i = 0; i < 20; i += 1) {
      now += 1_000;
      await readings.recent("key-a", media);
    }
    expect(usageCalls() - before).toBe(1);

    now = 1_000_000 + VIEW_MAX_AGE_MS;
    emu.account("test-key").creditsUsed += 5;
    expect((await readings.recent("key-a", media)).credits_used).toBe(emu.account("test-key").creditsUsed);
    expect(usageCalls() - before).toBe(2);

    await readings.recent("key-b", client.as("test-key"));
    expect(usageCalls() - before).toBe(3);
  });

  it("take what a start heard (a creation answer's figures) as a reading like any other", async () => {
    let now = 5_000_000;
    const readings = new AccountReadings(() => now);
    const before = usageCalls();
    readings.heard("key-c", { credits_used: 42, credits_limit: 100 });
    now += VIEW_MAX_AGE_MS - 1;
    expect((await readings.recent("key-c", client.as("test-key"))).credits_used).toBe(42);
    expect(usageCalls()).toBe(before);
  });
});

describe("probes before starts", () => {
  it("are shared by the starts that ask while one is on its way, each filed once under one id", async () => {
    const readings = new AccountReadings();
    const before = usageCalls();
    const probes = await Promise.all(
      Array.from({ length: 50 }, () => readings.probe("key-d", client.as("test-key"))),
    );
    expect(usageCalls() - before).toBe(1);
    expect(new Set(probes.map((p) => p?.reading?.id)).size).toBe(1);
    // The next start asks anew: a probe is the account before its own charge.
    await readings.probe("key-d", client.as("test-key"));
    expect(usageCalls() - before).toBe(2);
  });

  it("answer nothing, without throwing, when the service does not answer", async () => {
    const readings = new AccountReadings();
    expect(await readings.probe("key-e", client.as("no-such-key"))).toBeUndefined();
  });
});
