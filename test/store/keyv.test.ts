import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import sqlite3 from "sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openKeyvBackend } from "../../src/store/keyv.js";
import { sqlite } from "./backends.js";
import { describeRedis } from "./redis-server.js";

describe("keyv on sqlite", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "store-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates the file's directory and keeps namespaces apart on one connection", async () => {
    const file = join(dir, "nested", "deeper", "bot.sqlite");
    const backend = await openKeyvBackend(`sqlite://${file}`);
    try {
      expect(existsSync(file)).toBe(true);
      expect(backend.keyv("a")).toBe(backend.keyv("a"));
      await backend.keyv("a").set("k", "in a");
      await backend.keyv("b").set("k", "in b");
      expect(await backend.keyv("a").get("k")).toBe("in a");

      // clear() and iteration follow each Keyv's own namespace, not the last one created (Keyv's
      // iterator ignores its argument and asks its store for the namespace).
      const listed: unknown[] = [];
      for await (const [key, value] of backend.keyv("a").iterator!(undefined)) listed.push([key, value]);
      expect(listed).toEqual([["k", "in a"]]);
      await backend.keyv("b").clear();
      expect(await backend.keyv("a").get("k")).toBe("in a");
      expect(await backend.keyv("b").get("k")).toBeUndefined();
    } finally {
      await backend.close();
    }
  });

  it("close() really closes the file, and a second close is harmless", async () => {
    const backend = await openKeyvBackend(`sqlite://${join(dir, "bot.sqlite")}`);
    await backend.keyv("a").set("k", 1);
    await backend.close();
    await backend.close();
    await expect(backend.keyv("a").get("k")).rejects.toThrow(/closed/i);
  });

  it("purges expired entries when it opens, since sqlite has no TTL of its own", async () => {
    const file = join(dir, "bot.sqlite");
    const first = await openKeyvBackend(`sqlite://${file}`);
    await first.keyv("cache").set("short", 1, 1);
    await first.keyv("cache").set("long", 2);
    await first.close();
    await sleep(5);
    const second = await openKeyvBackend(`sqlite://${file}`);
    await second.close();
    expect(await sqlite(file, "SELECT key FROM keyv ORDER BY key")).toEqual([{ key: "cache:long" }]);
  });

  it("purges expired entries every five minutes while it runs, keeping a record set again meanwhile", async () => {
    const file = join(dir, "bot.sqlite");
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const backend = await openKeyvBackend(`sqlite://${file}`);
    try {
      await backend.keyv("jobs").set("done", 1, 1);
      await backend.keyv("jobs").set("again", 1, 1);
      await backend.keyv("jobs").set("running", 2);
      await sleep(5);
      await backend.keyv("jobs").set("again", 3, 60_000);
      const rows = () => sqlite(file, "SELECT key FROM keyv ORDER BY key");
      vi.advanceTimersByTime(5 * 60_000 - 1);
      expect(await rows()).toHaveLength(3);
      vi.advanceTimersByTime(1);
      await vi.waitFor(async () =>
        expect(await rows()).toEqual([{ key: "jobs:again" }, { key: "jobs:running" }]),
      );
    } finally {
      await backend.close();
      vi.useRealTimers();
    }
  });

  it("opens a new file another replica is starting on at that moment, waiting for it instead of failing to start", async () => {
    const file = join(dir, "bot.sqlite");
    const other = new sqlite3.Database(file);
    const run = (sql: string) =>
      new Promise<void>((resolve, reject) => other.all(sql, (error) => (error ? reject(error) : resolve())));
    await run("CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT)");
    // A write under way, as a replica's starting alongside: sqlite refuses the switch to WAL at once
    // rather than waiting (either side waiting for the other could wait for ever).
    await run("BEGIN IMMEDIATE");
    let waiting!: () => void;
    const told = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const infos: string[] = [];
    const logger = {
      warn: () => {},
      info: (text: string) => {
        infos.push(text);
        waiting();
      },
    };
    const opening = openKeyvBackend(`sqlite://${file}`, logger);
    await Promise.race([told, opening]);
    await run("COMMIT");
    await new Promise<void>((resolve) => other.close(() => resolve()));
    const backend = await opening;
    await backend.close();
    expect(infos).toEqual(["the sqlite store is in use by another process as it opens; waiting"]);
    expect(await sqlite(file, "PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
  });

  it("names what it cannot open", async () => {
    await expect(openKeyvBackend("mongodb://x")).rejects.toMatchObject({ code: "store.config" });
    writeFileSync(join(dir, "file"), "");
    for (const path of [join(dir, "file", "bot.sqlite"), dir]) {
      await expect(openKeyvBackend(`sqlite://${path}`)).rejects.toMatchObject({ code: "store.unreachable" });
    }
  });
});

describeRedis("keyv on redis", (server) => {
  it("shares one connection between namespaces, prefixes keys, and close() closes it", async () => {
    const backend = await openKeyvBackend(server().url);
    await backend.keyv("a").set("k", "in a");
    await backend.keyv("b").set("k", "in b", 60_000);
    expect(await backend.keyv("a").get("k")).toBe("in a");
    expect(await server().admin.pTTL("b::k")).toBeGreaterThan(50_000);
    // Ours and the test's admin client.
    expect((await server().admin.clientList()).length).toBe(2);
    await backend.close();
    await backend.close();
    expect(backend.connection.kind === "redis" && backend.connection.client.isOpen).toBe(false);
    expect((await server().admin.clientList()).length).toBe(1);
  });

  it("throws on a redis error instead of answering 'missing'", async () => {
    const backend = await openKeyvBackend(server().url);
    try {
      await server().admin.rPush("a::list", "not a string");
      await expect(backend.keyv("a").get("list")).rejects.toThrow(/WRONGTYPE/);
    } finally {
      await backend.close();
    }
  });
});
