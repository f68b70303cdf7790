import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type RedisClientType } from "@keyv/redis";
import { freePort } from "../../test/main-process.js";

/**
 * The benchmark's own redis-server, whose data can be saved once (the seeded jobs) and loaded
 * again before each run: a restart reads the snapshot, so every replica count faces the very
 * same 20,000 unfinished jobs without seeding them anew.
 */
export class BenchRedis {
  private child?: ChildProcess;
  admin!: RedisClientType;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(dir: string): Promise<BenchRedis> {
    const redis = new BenchRedis(await freePort(), dir);
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Writes the snapshot the next restart loads. */
  async snapshot(): Promise<void> {
    await this.admin.sendCommand(["SAVE"]);
  }

  /** Back to the snapshot, with the command counters at zero. */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  /** Calls per command since the start, from INFO commandstats. */
  async commandCalls(): Promise<Record<string, number>> {
    const info = await this.admin.info("commandstats");
    const calls: Record<string, number> = {};
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]!] = Number(match[2]);
    return calls;
  }

  async stop(): Promise<void> {
    this.admin.destroy();
    const child = this.child;
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }

  private async launch(): Promise<void> {
    this.child = spawn(
      "redis-server",
      [
        ...["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir],
        ...["--dbfilename", "seed.rdb", "--save", "", "--appendonly", "no"],
      ],
      { stdio: "ignore" },
    );
    this.admin = createClient({ url: this.url, socket: { reconnectStrategy: false } });
    this.admin.on("error", () => {});
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await this.admin.connect();
        // Loading a snapshot answers LOADING until done.
        if ((await this.admin.ping()) === "PONG") return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`redis-server did not come up: ${error}`);
        if (this.admin.isOpen) this.admin.destroy();
        this.admin = createClient({ url: this.url, socket: { reconnectStrategy: false } });
        this.admin.on("error", () => {});
        await sleep(50);
      }
    }
  }
}
