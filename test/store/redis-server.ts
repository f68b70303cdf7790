import { spawnSync } from "node:child_process";
import { createClient, type RedisClientType } from "@keyv/redis";
import { afterAll, beforeAll } from "vitest";
import { LocalTool } from "../local-tools.js";
import { freePort, spawnRedis } from "./redis-process.js";

export { type RestartableRedis, startRestartableRedis } from "./redis-process.js";

/**
 * A throwaway redis-server on 127.0.0.1 for the store tests, from the PATH; CI sets REQUIRE_REDIS=1 so that its absence fails the run instead of skipping tests.
 */
export const redisServer = new LocalTool({
  name: "redis-server",
  hint: "apt-get install redis-server (Debian/Ubuntu), brew install redis (macOS)",
  requiredBy: "REQUIRE_REDIS",
  probe: () => spawnSync("redis-server", ["--version"]).status === 0,
});

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
  redisServer.describe(title, () => {
    let server: RedisServer | undefined;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(() => server?.stop());
    body(() => server!);
  });
}

async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const server = await spawnRedis(port, ["--save", "", "--appendonly", "no"]);
  const url = `redis://127.0.0.1:${port}`;
  const admin: RedisClientType = createClient({ url, socket: { reconnectStrategy: false } });
  admin.on("error", () => {});
  await admin.connect();
  return {
    url,
    admin,
    async stop() {
      admin.destroy();
      await server.stop();
    },
  };
}

export { type SentinelGroup, startSentinelGroup } from "./redis-process.js";
