import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type RedisClientType } from "@keyv/redis";

/**
 * redis-server processes for the tests and benchmarks (Debian package `redis-server`), without
 * vitest so that the benchmarks can start them too.
 */

/** A redis-server that a test stops and starts again on the same port, its data kept on disk. */
export interface RestartableRedis {
  url: string;
  /** Stops the server as an operator's restart does (SIGTERM: it saves its data first). */
  down(): Promise<void>;
  /** Starts it again on the same port with the data it saved. */
  up(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as in a network partition. */
  freeze(): void;
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "redis-restart-"));
  // Saved on shutdown (any save point turns that on), never on a schedule of its own meanwhile.
  const args = ["--dir", dir, "--dbfilename", "dump.rdb", "--save", "3600 1000000", "--appendonly", "no"];
  let server: Spawned | undefined = await spawnRedis(port, args);
  return {
    url: `redis://127.0.0.1:${port}`,
    async down() {
      await server?.stop();
      server = undefined;
    },
    async up() {
      server ??= await spawnRedis(port, args);
    },
    freeze: () => server?.signal("SIGSTOP"),
    thaw: () => server?.signal("SIGCONT"),
    async stop() {
      await server?.stop();
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Spawned {
  stop(): Promise<void>;
  signal(signal: NodeJS.Signals): void;
}

/** Starts redis-server on `port` (from `configFile` first, if any) and resolves once it answers PING. */
export async function spawnRedis(port: number, args: string[], configFile?: string): Promise<Spawned> {
  const options = ["--port", String(port), "--bind", "127.0.0.1", ...args];
  const child = spawn("redis-server", configFile ? [configFile, ...options] : options, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = once(child, "exit");
  const deadline = Date.now() + 5_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited early:\n${output}`);
    const probe: RedisClientType = createClient({
      url: `redis://127.0.0.1:${port}`,
      socket: { reconnectStrategy: false },
    });
    probe.on("error", () => {});
    try {
      await probe.connect();
      const pong = await probe.ping();
      probe.destroy();
      if (pong === "PONG") break;
    } catch (error) {
      if (probe.isOpen) probe.destroy();
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`redis-server did not answer PING on ${port}: ${error}\n${output}`);
      }
      await sleep(20);
    }
  }
  return {
    async stop() {
      if (child.exitCode === null) {
        // A frozen server would not see the SIGTERM.
        child.kill("SIGCONT");
        child.kill("SIGTERM");
      }
      await exited;
    },
    signal: (signal) => child.kill(signal),
  };
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no TCP port");
  return address.port;
}

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * A primary, its replica and three sentinels (`redis-server --sentinel`), each a process of its
 * own on 127.0.0.1, with the sentinels' timeouts shrunk so that a promotion takes a few seconds:
 * the primary is taken for down after `downAfterMs` without an answer, and two sentinels agree.
 */
export interface SentinelGroup {
  /** The name the sentinels monitor the primary under (REDIS_SENTINEL_NAME). */
  name: string;
  sentinels: RedisNode[];
  /** The sentinels as REDIS_SENTINELS takes them: `127.0.0.1:26379,…`. */
  setting: string;
  /** The primary as the sentinels name it now. */
  primary(): Promise<RedisNode>;
  /** A replica of the primary, and a way to signal its process (SIGSTOP: it stops answering). */
  replica(): Promise<{ node: RedisNode; signal(signal: NodeJS.Signals): void }>;
  /** SIGKILLs the primary the sentinels name now; answers it. */
  killPrimary(): Promise<RedisNode>;
  /**
   * Waits until the sentinels name a primary other than `old` and it answers as one; answers it
   * and when it was promoted (the sentinels' `+switch-master`, seen from here).
   */
  promotion(old: RedisNode, withinMs: number): Promise<{ node: RedisNode; at: number }>;
  /** Starts a killed node again on its port, as a replica of the current primary. */
  revive(node: RedisNode): Promise<void>;
  /** Waits until the current primary has a replica in sync with it. */
  replicated(withinMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(
  options: { downAfterMs?: number; name?: string } = {},
): Promise<SentinelGroup> {
  const name = options.name ?? "media-bot";
  const downAfterMs = options.downAfterMs ?? 1_000;
  const dir = mkdtempSync(join(tmpdir(), "redis-sentinel-"));
  const processes = new Map<number, Spawned>();
  const dataArgs = (port: number) => [
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    join(dir),
    "--dbfilename",
    `dump-${port}.rdb`,
  ];
  const started: Spawned[] = [];
  const stopAll = async () => {
    await Promise.all([...processes.values(), ...started].map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    processes.set(primaryPort, await spawnRedis(primaryPort, dataArgs(primaryPort)));
    const replicaPort = await freePort();
    processes.set(
      replicaPort,
      await spawnRedis(replicaPort, [
        ...dataArgs(replicaPort),
        "--replicaof",
        "127.0.0.1",
        String(primaryPort),
      ]),
    );
    const sentinels: RedisNode[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      // Sentinel rewrites its file as it learns the group: it must be its own and writable.
      writeFileSync(
        file,
        [
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
          `sentinel failover-timeout ${name} ${Math.max(3_000, downAfterMs * 3)}`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      started.push(await spawnRedis(port, ["--sentinel", "--dir", dir], file));
      sentinels.push({ host: "127.0.0.1", port });
    }
    const ask = async <T>(run: (client: RedisClientType) => Promise<T>, node: RedisNode): Promise<T> => {
      const client: RedisClientType = createClient({ socket: { ...node, reconnectStrategy: false } });
      client.on("error", () => {});
      try {
        await client.connect();
        return await run(client);
      } finally {
        if (client.isOpen) client.destroy();
      }
    };
    const primary = async (): Promise<RedisNode> => {
      for (const sentinel of sentinels) {
        const reply = await ask(
          (c) => c.sendCommand(["SENTINEL", "get-master-addr-by-name", name]),
          sentinel,
        ).catch(() => undefined);
        if (Array.isArray(reply)) return { host: String(reply[0]), port: Number(reply[1]) };
      }
      throw new Error("no sentinel names the primary");
    };
    const role = (node: RedisNode) =>
      ask((c) => c.sendCommand(["ROLE"]), node).then(
        (reply) => (Array.isArray(reply) ? (reply as unknown[]) : undefined),
        () => undefined,
      );
    const group: SentinelGroup = {
      name,
      sentinels,
      setting: sentinels.map((s) => `${s.host}:${s.port}`).join(","),
      primary,
      async replica() {
        const now = await primary();
        const [port, process] = [...processes].find(([p]) => p !== now.port) ?? [];
        if (!port || !process) throw new Error("no replica runs");
        return { node: { host: "127.0.0.1", port }, signal: process.signal };
      },
      async killPrimary() {
        const node = await primary();
        const victim = processes.get(node.port);
        if (!victim) throw new Error(`no process on ${node.port}`);
        victim.signal("SIGKILL");
        await victim.stop();
        processes.delete(node.port);
        return node;
      },
      async promotion(old, withinMs) {
        const end = Date.now() + withinMs;
        for (;;) {
          const now = await primary().catch(() => old);
          if (now.port !== old.port && (await role(now))?.[0] === "master")
            return { node: now, at: Date.now() };
          if (Date.now() > end)
            throw new Error(`no promotion within ${withinMs} ms (sentinels name ${now.port})`);
          await sleep(50);
        }
      },
      async revive(node) {
        const now = await primary();
        processes.set(
          node.port,
          await spawnRedis(node.port, [...dataArgs(node.port), "--replicaof", now.host, String(now.port)]),
        );
      },
      async replicated(withinMs) {
        const end = Date.now() + withinMs;
        for (;;) {
          const reply = await role(await primary().catch(() => ({ host: "127.0.0.1", port: 0 })));
          if (reply?.[0] === "master" && Array.isArray(reply[2]) && reply[2].length > 0) return;
          if (Date.now() > end) throw new Error(`no replica in sync within ${withinMs} ms`);
          await sleep(50);
        }
      },
      stop: stopAll,
    };
    await group.replicated(10_000);
    return group;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
