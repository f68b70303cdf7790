import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import sqlite3 from "sqlite3";
import { afterEach, beforeEach, describe } from "vitest";
import { openStores, type Stores } from "../../src/store/index.js";
import { describeRedis } from "./redis-server.js";

/** 64 hex digits: a raw key, so tests do not pay for scrypt. */
export const SECRETS_KEY = "7f".repeat(32);

export interface BackendContext {
  kind: "sqlite" | "redis";
  /** A fresh store per test: a new sqlite file, or a flushed redis. */
  url(): string;
  /**
   * Opens stores on `url()`; each call is its own connection, closed after the test. SECRETS_KEY is
   * the one above unless `secretsKey` is given (undefined for none).
   */
  open(options?: {
    secretsKey?: string;
    retentionMs?: number;
    logger?: Parameters<typeof openStores>[2];
  }): Promise<Stores>;
  /** The stored text of a keyv record, bypassing keyv, as an attacker with the database would see it. */
  readRaw(namespace: string, key: string): Promise<string | undefined>;
  writeRaw(namespace: string, key: string, text: string): Promise<void>;
}

/** Declares the same tests against a real sqlite file and a real redis-server. */
export function describeEachBackend(title: string, body: (ctx: BackendContext) => void): void {
  describe(`${title} (sqlite)`, () => {
    let dir = "";
    const file = () => join(dir, "data", "bot.sqlite");
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "store-test-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    body(
      withOpen({
        kind: "sqlite",
        url: () => `sqlite://${file()}`,
        readRaw: async (namespace, key) =>
          (await sqlite(file(), "SELECT value FROM keyv WHERE key = ?", `${namespace}:${key}`))[0]?.value,
        writeRaw: async (namespace, key, text) => {
          await sqlite(file(), "UPDATE keyv SET value = ? WHERE key = ?", text, `${namespace}:${key}`);
        },
      }),
    );
  });

  describeRedis(`${title} (redis)`, (server) => {
    beforeEach(async () => {
      await server().admin.flushAll();
    });
    body(
      withOpen({
        kind: "redis",
        url: () => server().url,
        readRaw: async (namespace, key) => (await server().admin.get(`${namespace}::${key}`)) ?? undefined,
        writeRaw: async (namespace, key, text) => {
          await server().admin.set(`${namespace}::${key}`, text);
        },
      }),
    );
  });
}

function withOpen(ctx: Omit<BackendContext, "open">): BackendContext {
  const opened: Stores[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((stores) => stores.close()));
  });
  return {
    ...ctx,
    async open(options = {}) {
      const stores = await openStores(
        ctx.url(),
        "secretsKey" in options ? options.secretsKey : SECRETS_KEY,
        options.logger,
        {
          jobs: { retentionMs: options.retentionMs },
        },
      );
      opened.push(stores);
      return stores;
    },
  };
}

/** A connection of the test's own to the store's file. */
export async function sqlite(file: string, sql: string, ...params: unknown[]): Promise<{ value?: string }[]> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
  });
  try {
    return await new Promise((resolve, reject) =>
      db.all(sql, params, (error, rows: { value?: string }[]) => (error ? reject(error) : resolve(rows))),
    );
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** A pino logger whose lines the test can read. */
export function capturingLogger(level: "info" | "warn" | "error" = "error") {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { logger, lines };
}
