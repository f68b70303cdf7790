import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type RedisClientType } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A throwaway redis-server on 127.0.0.1 for the store tests (Debian package `redis-server`). */

const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
/** CI sets REQUIRE_REDIS=1 so that a missing redis-server fails the run instead of skipping tests. */
const requireRedis = process.env.REQUIRE_REDIS === "1";

export interface RedisServer {
  url: string;
  /** A client of the test's own, to flush between tests and look at raw keys. */
  admin: RedisClientType;
  stop(): Promise<void>;
}

/**
 * Tests against a redis-server of their own, started once for the block. They run when
 * redis-server is on PATH; without it they are skipped, or fail when REQUIRE_REDIS=1.
 */
export function describeRedis(title: string, body: (server: () => RedisServer) => void): void {
  describe.runIf(hasRedis)(title, () => {
    let server: RedisServer | undefined;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(() => server?.stop());
    body(() => server!);
  });
  if (requireRedis && !hasRedis) {
    describe(title, () => {
      it("has a redis-server to run against (REQUIRE_REDIS=1)", () => {
        expect.fail("redis-server is not on PATH: install the Debian package redis-server");
      });
    });
  }
}

async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = once(child, "exit");

  const url = `redis://127.0.0.1:${port}`;
  const admin: RedisClientType = createClient({ url, socket: { reconnectStrategy: false } });
  admin.on("error", () => {});
  const deadline = Date.now() + 5_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited early:\n${output}`);
    try {
      await admin.connect();
      if ((await admin.ping()) === "PONG") break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`redis-server did not answer PING on ${port}: ${error}\n${output}`);
      }
      await sleep(20);
    }
  }

  return {
    url,
    admin,
    async stop() {
      admin.destroy();
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no TCP port");
  return address.port;
}
