import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
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

/** Starts redis-server on `port` and resolves once it answers PING. */
export async function spawnRedis(port: number, args: string[]): Promise<Spawned> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", ...args], {
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
