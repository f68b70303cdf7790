import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { withClaim } from "../../src/store/claims.js";
import { describeEachBackend } from "./backends.js";

const keys = Array.from({ length: 40 }, (_, i) => `job:${i}`);

describeEachBackend("claims", (ctx) => {
  it("gives a key to one owner at a time; only the holder renews or releases it", async () => {
    const { claims } = await ctx.open();
    expect(await claims.acquire("k", "a", 10_000)).toBe(true);
    expect(await claims.acquire("k", "b", 10_000)).toBe(false);
    expect(await claims.acquire("k", "a", 10_000)).toBe(false);

    expect(await claims.release("k", "b")).toBe(false);
    expect(await claims.renew("k", "b", 10_000)).toBe(false);
    expect(await claims.acquire("k", "b", 10_000)).toBe(false);

    expect(await claims.renew("k", "a", 10_000)).toBe(true);
    expect(await claims.release("k", "a")).toBe(true);
    expect(await claims.acquire("k", "b", 10_000)).toBe(true);
    expect(await claims.acquire("other", "a", 10_000)).toBe(true);
  });

  it("lets another owner take over an expired claim, and the old holder can no longer touch it", async () => {
    const { claims } = await ctx.open();
    expect(await claims.acquire("k", "crashed", 30)).toBe(true);
    await sleep(60);
    expect(await claims.acquire("k", "next", 10_000)).toBe(true);
    expect(await claims.renew("k", "crashed", 10_000)).toBe(false);
    expect(await claims.release("k", "crashed")).toBe(false);
    expect(await claims.acquire("k", "third", 10_000)).toBe(false);
  });

  it("keeps a renewed claim past its first ttl", async () => {
    const { claims } = await ctx.open();
    expect(await claims.acquire("k", "a", 200)).toBe(true);
    expect(await claims.renew("k", "a", 10_000)).toBe(true);
    await sleep(250);
    expect(await claims.acquire("k", "b", 10_000)).toBe(false);
  });

  it("refuses a ttl that is not a positive duration", async () => {
    const { claims } = await ctx.open();
    await expect(claims.acquire("k", "a", 0)).rejects.toThrow(RangeError);
  });

  it("gives each key to exactly one of many concurrent owners on two connections", async () => {
    const connections = [await ctx.open(), await ctx.open()];
    const owners = Array.from({ length: 8 }, (_, i) => ({
      owner: `owner-${i}`,
      claims: connections[i % 2]!.claims,
    }));
    const attempts = await Promise.all(
      keys.flatMap((key) =>
        owners.map(async ({ owner, claims }) => ({
          key,
          owner,
          won: await claims.acquire(key, owner, 60_000),
        })),
      ),
    );
    for (const key of keys) {
      expect(attempts.filter((a) => a.key === key && a.won)).toHaveLength(1);
    }
  });

  it("takes many keys at once: free, expired or the named holder's ones, never a live other's", async () => {
    const { claims } = await ctx.open();
    expect(await claims.acquire("held", "other", 60_000)).toBe(true);
    expect(await claims.acquire("dead's", "dead", 60_000)).toBe(true);
    expect(await claims.acquire("expired", "other", 30)).toBe(true);
    await sleep(60);
    const wanted = ["free", "held", "dead's", "expired"];
    expect([...(await claims.transferAll(wanted, "dead", "me", 60_000))].sort()).toEqual(
      ["dead's", "expired", "free"].sort(),
    );
    expect(await claims.owners([...wanted, "never"])).toEqual(["me", "other", "me", "me", undefined]);
    // Taken means held as any claim is: the old holder can no longer release it, the new one can.
    expect(await claims.release("dead's", "dead")).toBe(false);
    expect(await claims.release("dead's", "me")).toBe(true);
  });

  it("splits many keys between two connections taking them at once, each key to exactly one", async () => {
    const many = Array.from({ length: 1_500 }, (_, i) => `own:${i}`);
    const [first, second] = [await ctx.open(), await ctx.open()];
    const [a, b] = await Promise.all([
      first.claims.transferAll(many, "a", "a", 60_000),
      second.claims.transferAll([...many].reverse(), "b", "b", 60_000),
    ]);
    expect(a.size + b.size).toBe(many.length);
    for (const key of many) expect(a.has(key)).not.toBe(b.has(key));
    const owners = await first.claims.owners(many);
    expect(owners.every((owner, i) => owner === (a.has(many[i]!) ? "a" : "b"))).toBe(true);
  });

  it("drops many keys whoever holds them", async () => {
    const { claims } = await ctx.open();
    await claims.acquire("x", "a", 60_000);
    await claims.acquire("y", "b", 60_000);
    await claims.drop(["x", "y", "never"]);
    expect(await claims.owners(["x", "y"])).toEqual([undefined, undefined]);
    expect(await claims.acquire("x", "c", 60_000)).toBe(true);
  });

  if (ctx.kind === "sqlite") {
    it("gives each key to exactly one side when another process competes", async () => {
      const [first, second] = [await ctx.open(), await ctx.open()];
      const worker = fileURLToPath(new URL("./claim-worker.ts", import.meta.url));
      const child = spawn(process.execPath, ["--import", "tsx", worker, ctx.url(), "child", ...keys], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe("ready");

      child.stdin.write("go\n");
      const ours = await Promise.all(
        keys.map((key) =>
          Promise.all([
            first.claims.acquire(key, "parent-1", 60_000),
            second.claims.acquire(key, "parent-2", 60_000),
          ]),
        ),
      );
      const childWon = new Set(JSON.parse((await lines.next()).value!) as string[]);
      keys.forEach((key, i) => {
        expect([childWon.has(key), ...ours[i]!].filter(Boolean)).toHaveLength(1);
      });
    });
  }

  it("serializes read-modify-writes across connections with withClaim", async () => {
    const connections = [await ctx.open(), await ctx.open()];
    const counter = connections[0]!.keyv("test");
    await counter.set("n", 0);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withClaim(connections[i % 2]!.claims, "lock:test:n", async (lease) => {
          const n = (await connections[i % 2]!.keyv("test").get("n")) as number;
          await lease.confirm();
          await connections[i % 2]!.keyv("test").set("n", n + 1);
        }),
      ),
    );
    expect(await counter.get("n")).toBe(20);
  });

  it("does not write when its claim expired mid-way", async () => {
    const { claims } = await ctx.open();
    let entered!: () => void;
    let intruded!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const intrusion = new Promise<void>((resolve) => {
      intruded = resolve;
    });
    const write = withClaim(
      claims,
      "lock:slow",
      async (lease) => {
        entered();
        await intrusion;
        await lease.confirm();
        return "written";
      },
      { ttlMs: 30 },
    );
    await inside;
    await sleep(60);
    expect(await claims.acquire("lock:slow", "intruder", 10_000)).toBe(true);
    intruded();
    await expect(write).rejects.toMatchObject({ code: "store.claim_lost" });
    // The failed holder's release left the intruder's claim alone.
    expect(await claims.acquire("lock:slow", "third", 10_000)).toBe(false);
  });

  it("gives up on a key that stays busy", async () => {
    const { claims } = await ctx.open();
    await claims.acquire("lock:busy", "someone", 10_000);
    await expect(withClaim(claims, "lock:busy", async () => {}, { waitMs: 50 })).rejects.toMatchObject({
      code: "store.busy",
    });
  });
});
