import { describe, expect, it } from "vitest";
import type { MediaApi } from "../../../src/core/api/client.js";
import { CatalogCache } from "../../../src/core/media/catalog-cache.js";

function fakeMedia(count: number) {
  const calls = { avatars: 0 };
  const media = {
    avatars: {
      list: async () => {
        calls.avatars += 1;
        return Array.from({ length: count }, (_, i) => ({
          id: `a${i}`,
          name: `Avatar ${i}`,
          voiceId: "1",
          isPhoto: i % 2 === 0,
        }));
      },
    },
  } as unknown as MediaApi;
  return { media, calls };
}

describe("pick lists", () => {
  it("answers at most 25 choices, prefix matches first", async () => {
    const { media } = fakeMedia(60);
    const cache = new CatalogCache();
    expect(await cache.choices("t", "avatars", media, "")).toHaveLength(25);
    const choices = await cache.choices("t", "avatars", media, "avatar 5");
    expect(choices[0]).toEqual({ label: "Avatar 5 · a5", value: "a5" });
    expect(choices.map((c) => c.value)).toEqual(["a5", ...Array.from({ length: 10 }, (_, i) => `a5${i}`)]);
  });

  it("reuses a list while it is fresh, per tenant, and reads it again after the ttl", async () => {
    const { media, calls } = fakeMedia(3);
    let now = 0;
    const cache = new CatalogCache({ ttlMs: 1000, clock: () => now });
    await Promise.all([cache.list("t", "avatars", media), cache.list("t", "avatars", media)]);
    expect(calls.avatars).toBe(1);
    await cache.list("other", "avatars", media);
    expect(calls.avatars).toBe(2);
    now = 1500;
    await cache.list("t", "avatars", media);
    expect(calls.avatars).toBe(3);
  });

  it("finds a submitted id, or a unique name, reading the list again on a miss", async () => {
    const { media, calls } = fakeMedia(3);
    const cache = new CatalogCache();
    expect(await cache.find("t", "avatars", media, "a1")).toMatchObject({ id: "a1", voiceId: "1" });
    expect((await cache.choices("t", "avatars", media, "avatar 0"))[0]?.label).toBe(
      "Avatar 0 · photo avatar · a0",
    );
    expect(await cache.find("t", "avatars", media, "avatar 2")).toMatchObject({ id: "a2" });
    expect(calls.avatars).toBe(1);
    expect(await cache.find("t", "avatars", media, "a9")).toBeUndefined();
    expect(calls.avatars).toBe(2);
  });

  it("does not keep a failed read", async () => {
    let fail = true;
    const media = {
      voices: {
        list: async () => {
          if (fail) throw new Error("down");
          return [{ id: "1", name: "Ava" }];
        },
      },
    } as unknown as MediaApi;
    const cache = new CatalogCache();
    await expect(cache.list("t", "voices", media)).rejects.toThrow("down");
    fail = false;
    expect(await cache.list("t", "voices", media)).toEqual([{ id: "1", name: "Ava" }]);
  });
});
