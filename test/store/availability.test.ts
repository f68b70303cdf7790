import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import KeyvSqlite from "@keyv/sqlite";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OUTAGE_REMINDER_MS, StoreAvailability } from "../../src/store/availability.js";
import { isStoreOutage, StoreError } from "../../src/store/errors.js";
import { openKeyvBackend } from "../../src/store/keyv.js";
import { LocalTool } from "../local-tools.js";
import { redisServer, startRestartableRedis } from "./redis-server.js";

/** A logger that keeps the lines it wrote. */
function recorder() {
  const lines: ({ level: string; msg: string } & Record<string, unknown>)[] = [];
  const logger = pino(
    { formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { lines, logger };
}

describe("the store's availability", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says an outage once, again every 30 s with the operations refused meanwhile, and its end once", () => {
    vi.useFakeTimers();
    const { lines, logger } = recorder();
    const availability = new StoreAvailability({ backend: "redis", logger });
    const back = vi.fn();
    availability.onBack(back);
    for (let i = 0; i < 50; i++) availability.down(new Error("connect ECONNREFUSED 127.0.0.1:6379"));
    expect(lines.map((l) => l.msg)).toEqual([
      "store unreachable: commands are refused (nothing charged) and jobs wait until it answers",
    ]);
    expect(availability.problem()).toMatch(/^redis store unreachable for 0 s: connect ECONNREFUSED/);

    vi.advanceTimersByTime(OUTAGE_REMINDER_MS);
    for (let i = 0; i < 10; i++) availability.down(new Error("The client is offline"));
    vi.advanceTimersByTime(OUTAGE_REMINDER_MS);
    expect(lines.map((l) => l.msg)).toEqual([
      "store unreachable: commands are refused (nothing charged) and jobs wait until it answers",
      "store still unreachable",
      "store still unreachable",
    ]);
    expect(lines[2]).toMatchObject({ awayMs: 60_000, refusedOperations: 60 });

    availability.up();
    availability.up();
    expect(lines.at(-1)).toMatchObject({ level: "info", msg: "store answers again: jobs resume" });
    expect(lines).toHaveLength(4);
    expect(back).toHaveBeenCalledOnce();
    expect(availability.available).toBe(true);
    vi.advanceTimersByTime(5 * OUTAGE_REMINDER_MS);
    expect(lines).toHaveLength(4);
  });

  it("lets work wait for the store's return", async () => {
    const availability = new StoreAvailability({ backend: "sqlite" });
    await availability.whenAvailable();
    availability.down(new Error("SQLITE_FULL"));
    let resumed = false;
    const waiting = availability.whenAvailable().then(() => {
      resumed = true;
    });
    await sleep(10);
    expect(resumed).toBe(false);
    availability.up();
    await waiting;
    expect(resumed).toBe(true);
    availability.close();
  });

  it("tells an outage from a fault: the store's connection and lock errors are outages, others are not", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const busy = Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" });
    // The media service or a chat unreachable is their own failure, reported as such.
    expect(isStoreOutage(refused)).toBe(false);
    expect(isStoreOutage(busy)).toBe(true);
    expect(isStoreOutage(new StoreError("store.unavailable", "get in jobs", { cause: refused }))).toBe(true);
    expect(isStoreOutage(new Error("wrapped", { cause: busy }))).toBe(true);
    expect(isStoreOutage(new StoreError("store.corrupt", "bad record"))).toBe(false);
    expect(isStoreOutage(Object.assign(new Error("constraint"), { code: "SQLITE_CONSTRAINT" }))).toBe(false);
    expect(isStoreOutage(new TypeError("x is undefined"))).toBe(false);
    expect(isStoreOutage(undefined)).toBe(false);
  });
});

/**
 * A full disk is a small tmpfs filled up. Mounting one takes root and a container allowed to mount
 * (CI here has both); elsewhere that test is skipped.
 */
const tmpfsMount = new LocalTool({
  name: "a tmpfs mount",
  hint: "the full-disk test mounts a small tmpfs: run as root where mount(8) may (CI does)",
  probe: () => {
    if (process.getuid?.() !== 0) return false;
    const dir = mkdtempSync(join(tmpdir(), "mount-check-"));
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).status === 0;
    if (mounted) spawnSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
    return mounted;
  },
});

describe("a sqlite store that goes away", () => {
  const dirs: string[] = [];
  const fileIn = () => {
    const dir = mkdtempSync(join(tmpdir(), "store-away-"));
    dirs.push(dir);
    return join(dir, "bot.sqlite");
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  tmpfsMount.it(
    "disk full: unavailable (reads too, at once) until there is room again, nothing lost",
    async () => {
      const disk = mkdtempSync(join(tmpdir(), "store-full-"));
      // A small disk of its own, so that filling it fills nothing else.
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk]);
      try {
        const { lines, logger } = recorder();
        const backend = await openKeyvBackend(`sqlite://${join(disk, "bot.sqlite")}`, logger);
        const jobs = backend.keyv("jobs");
        await jobs.set("kept", { n: 1 });
        // Another program fills the disk.
        const filler = join(disk, "filler");
        try {
          for (;;) appendFileSync(filler, Buffer.alloc(64 * 1024));
        } catch {}

        const error = await jobs.set("big", { text: "x".repeat(400_000) }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "store.unavailable" });
        expect(backend.availability.problem()).toMatch(/sqlite store unreachable .*full/);
        // Known away: refused at once rather than each waiting on the store.
        await expect(jobs.get("kept")).rejects.toMatchObject({ code: "store.unavailable" });
        await sleep(2_500);
        expect(backend.availability.available).toBe(false);

        rmSync(filler);
        await backend.availability.whenAvailable();
        expect(await jobs.get("kept")).toEqual({ n: 1 });
        await jobs.set("big", { text: "x".repeat(400_000) });
        expect(lines.map((l) => l.msg)).toEqual([
          "store unreachable: commands are refused (nothing charged) and jobs wait until it answers",
          "store answers again: jobs resume",
        ]);
        await backend.close();
      } finally {
        execFileSync("umount", [disk]);
        rmSync(disk, { recursive: true, force: true });
      }
    },
  );

  it("locked by another process past the busy timeout: unavailable until the lock goes", async () => {
    const file = fileIn();
    const backend = await openKeyvBackend(`sqlite://${file}`);
    const jobs = backend.keyv("jobs");
    await jobs.set("a", 1);
    // Another connection to the file (a CLI, a second bot) holds the write lock.
    const other = new KeyvSqlite({ uri: `sqlite://${file}` });
    await other.query("BEGIN EXCLUSIVE");
    const error = await jobs.set("b", 2).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "store.unavailable" });
    expect(backend.availability.available).toBe(false);
    await other.query("ROLLBACK");
    await backend.availability.whenAvailable();
    await jobs.set("b", 2);
    expect(await jobs.get("b")).toBe(2);
    await other.disconnect();
    await backend.close();
  }, 20_000);
});

redisServer.describe("a redis store that stops answering", () => {
  it("partitioned (the server frozen, its connection open): unavailable once the connection is silent 10 s, back once it answers", async () => {
    const redis = await startRestartableRedis();
    const { lines, logger } = recorder();
    const backend = await openKeyvBackend(redis.url, logger);
    try {
      const jobs = backend.keyv("jobs");
      await jobs.set("a", 1);
      redis.freeze();
      const startedAt = Date.now();
      const error = await jobs.get("a").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "store.unavailable" });
      expect(Date.now() - startedAt).toBeLessThan(17_000);
      expect(backend.availability.available).toBe(false);
      // Known away: the next operation fails at once rather than after another timeout.
      const again = Date.now();
      await expect(jobs.get("a")).rejects.toMatchObject({ code: "store.unavailable" });
      expect(Date.now() - again).toBeLessThan(100);
      redis.thaw();
      await backend.availability.whenAvailable();
      expect(await jobs.get("a")).toBe(1);
      expect(lines.map((l) => l.msg)).toEqual([
        "store unreachable: commands are refused (nothing charged) and jobs wait until it answers",
        "store answers again: jobs resume",
      ]);
    } finally {
      await backend.close();
      await redis.stop();
    }
  }, 40_000);
});
