import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type RedisClientType } from "@keyv/redis";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { registry } from "../../src/metrics-registry.js";
import type { KeyvBackend } from "../../src/store/keyv.js";
import { openKeyvBackend } from "../../src/store/keyv.js";
import { freePort, type SentinelGroup, spawnRedis, startSentinelGroup } from "./redis-process.js";
import { redisServer } from "./redis-server.js";

/**
 * The store's connection to a Redis that fails over: a primary, its replica and three sentinels,
 * real redis-server processes. The primary is SIGKILLed and the bot's connection follows the
 * promoted replica; the writes the bot acknowledged before are there; a replica that stops
 * answering holds an acknowledgement until it answers or leaves; a Redis Cluster is refused.
 */

const logger = pino({ level: "silent" });

async function client(node: { host: string; port: number }): Promise<RedisClientType> {
  const c: RedisClientType = createClient({ socket: { ...node, reconnectStrategy: false } });
  c.on("error", () => {});
  await c.connect();
  return c;
}

const metric = async (name: string) =>
  (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? [];

redisServer.describe("a redis behind sentinels", () => {
  let group: SentinelGroup;
  let backend: KeyvBackend;
  beforeAll(async () => {
    group = await startSentinelGroup();
    backend = await openKeyvBackend("redis://", logger, { nodes: group.sentinels, name: group.name });
  }, 30_000);
  afterAll(async () => {
    await backend?.close();
    await group?.stop();
  });

  const link = () => {
    if (backend.connection.kind !== "redis") throw new Error("not redis");
    return backend.connection.link;
  };

  it("waits for the replica before it calls a write acknowledged, and tells /readyz when it lags", async () => {
    const primary = await group.primary();
    expect(link().state()).toEqual({ node: `${primary.host}:${primary.port}`, replicas: 1, failovers: 0 });
    const replica = await group.replica();
    const from = link().checkpoint();
    await backend.keyv("jobs").set("held", "by the replica");
    replica.signal("SIGSTOP");
    try {
      let acknowledged = false;
      const waiting = link()
        .replicated(from)
        .then(() => {
          acknowledged = true;
        });
      await sleep(2_500);
      expect(acknowledged).toBe(false);
      expect(link().lagging()).toMatch(/no replica of redis .* acknowledged the store's writes for \d+ s/);
      // Everything else goes on meanwhile: the wait holds a connection of its own.
      expect(await backend.keyv("jobs").get("held")).toBe("by the replica");
      replica.signal("SIGCONT");
      await waiting;
      expect(link().lagging()).toBeUndefined();
    } finally {
      replica.signal("SIGCONT");
    }
  }, 20_000);

  it("follows the promoted replica after the primary is SIGKILLed: acknowledged writes kept, one failover counted", async () => {
    const jobs = backend.keyv("jobs");
    for (let i = 0; i < 50; i++) {
      const from = link().checkpoint();
      await jobs.set(`job-${i}`, { i });
      await link().replicated(from);
    }
    const before = link().checkpoint();
    const killed = await group.killPrimary();
    const promoted = await group.promotion(killed, 20_000);
    await until(
      () => backend.availability.available && link().state().node !== `${killed.host}:${killed.port}`,
      5_000,
    );
    const followedMs = Date.now() - promoted.at;
    expect(link().state()).toEqual({
      node: `${promoted.node.host}:${promoted.node.port}`,
      replicas: 0,
      failovers: 1,
    });
    for (let i = 0; i < 50; i++) expect(await jobs.get(`job-${i}`)).toEqual({ i });
    // A checkpoint of the old primary's connection is never taken for acknowledged.
    await expect(link().replicated(before)).rejects.toMatchObject({ code: "store.unavailable" });
    // Alone, the new primary acknowledges at once: nothing could be promoted past it.
    const from = link().checkpoint();
    await jobs.set("after", 1);
    await link().replicated(from);
    expect(await metric("mediabot_store_failovers_total")).toEqual([expect.objectContaining({ value: 1 })]);
    expect(await metric("mediabot_store_node")).toEqual([
      expect.objectContaining({ labels: { node: `${promoted.node.host}:${promoted.node.port}` }, value: 1 }),
    ]);
    console.info(`store followed the promotion ${followedMs} ms after it`);
    expect(followedMs).toBeLessThan(3_000);

    // The old primary back as a replica: acknowledgements wait for it again.
    await group.revive(killed);
    await group.replicated(15_000);
    await until(() => link().state().replicas === 1, 5_000);
  }, 60_000);
});

redisServer.describe("a redis that is no primary", () => {
  it("refuses a Redis Cluster node at start, in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "redis-cluster-"));
    const port = await freePort();
    const node = await spawnRedis(port, [
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      join(dir, "nodes.conf"),
      "--dir",
      dir,
      "--save",
      "",
    ]);
    try {
      const opened = openKeyvBackend(`redis://127.0.0.1:${port}`, logger);
      await expect(opened).rejects.toMatchObject({ code: "store.config" });
      await expect(opened).rejects.toThrow(
        /^STORE_URL: redis at 127\.0\.0\.1:\d+ is a node of a Redis Cluster, which the bot does not support/,
      );
    } finally {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves a primary demoted behind its URL, and comes back when it is a primary again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "redis-demoted-"));
    const [port, otherPort] = [await freePort(), await freePort()];
    const nodes = [
      await spawnRedis(port, ["--dir", dir, "--save", "", "--dbfilename", "a.rdb"]),
      await spawnRedis(otherPort, ["--dir", dir, "--save", "", "--dbfilename", "b.rdb"]),
    ];
    const backend = await openKeyvBackend(`redis://127.0.0.1:${port}`, logger);
    const admin = await client({ host: "127.0.0.1", port });
    try {
      await backend.keyv("jobs").set("a", 1);
      // A managed failover: the node behind the name becomes a replica of another.
      await admin.sendCommand(["REPLICAOF", "127.0.0.1", String(otherPort)]);
      await until(() => !backend.availability.available, 5_000);
      await expect(backend.keyv("jobs").set("b", 2)).rejects.toMatchObject({ code: "store.unavailable" });
      await admin.sendCommand(["REPLICAOF", "NO", "ONE"]);
      await backend.availability.whenAvailable();
      await backend.keyv("jobs").set("b", 2);
      expect(await backend.keyv("jobs").get("b")).toBe(2);
    } finally {
      admin.destroy();
      await backend.close();
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not so within ${ms} ms`);
    await sleep(20);
  }
}
