import { execFileSync } from "node:child_process";
import { type Balancer, startBalancer } from "./balancer.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack } from "./fakes/slack/index.js";
import { BotProcess, freePort } from "./main-process.js";

/**
 * Several real bot processes (`node dist/main.js`) on one redis, behind a round-robin balancer in
 * front of their one HTTP server each (POST /slack/events), as an operator runs replicas: the
 * emulator and the fake Slack are shared; each replica has its own INSTANCE_ID and port.
 */

const root = new URL("..", import.meta.url).pathname;

export interface ReplicaWorldOptions {
  replicas: number;
  redisUrl: string;
  /** The emulator's time scale (a 20 s image takes 20 s × this). */
  timeScale: number;
}

export interface Replica {
  id: string;
  origin: string;
  bot: BotProcess;
}

export class ReplicaWorld {
  private constructor(
    readonly emu: Emulator,
    readonly slack: FakeSlack,
    readonly replicas: Replica[],
    readonly balancer: Balancer,
  ) {}

  /** Builds dist/ when a source is newer than it (once per clone), then starts every replica. */
  static async start(options: ReplicaWorldOptions): Promise<ReplicaWorld> {
    execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: root, stdio: "ignore" });
    const emu = await startEmulator({ timeScale: options.timeScale });
    emu.account("test-key").creditsLimit = 1e9;
    const slack = await startFakeSlack();
    const replicas = await Promise.all(
      Array.from({ length: options.replicas }, async (_, i) => {
        const port = await freePort();
        const id = `replica-${i}`;
        const bot = BotProcess.start(
          {
            INSTANCE_ID: id,
            PORT: String(port),
            MEDIA_API_URL: emu.url,
            MEDIA_API_KEY: "test-key",
            MEDIA_API_KEY_TENANTS: "*",
            STORE_URL: options.redisUrl,
            SLACK_BOT_TOKEN: slack.botToken,
            SLACK_SIGNING_SECRET: slack.signingSecret,
            SLACK_API_URL: slack.apiUrl,
          },
          "dist",
        );
        return { id, origin: `http://127.0.0.1:${port}`, bot };
      }),
    );
    try {
      await Promise.all(replicas.map((r) => r.bot.ready()));
    } catch (error) {
      await Promise.all(replicas.map((r) => r.bot.kill()));
      await Promise.all([emu.close(), slack.close()]);
      throw error;
    }
    const balancer = await startBalancer(replicas.map((r) => r.origin));
    return new ReplicaWorld(emu, slack, replicas, balancer);
  }

  /** Where Slack sends commands and clicks: the balancer. */
  get slackEventsUrl(): string {
    return `${this.balancer.url}/slack/events`;
  }

  /** The replicas' logs, for the message of a failed wait. */
  tails(lines = 15): string {
    return this.replicas.map((r) => `--- ${r.id}\n${r.bot.tail(lines)}`).join("\n");
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.bot.kill()));
    await this.balancer.close();
    await Promise.all([this.emu.close(), this.slack.close()]);
  }
}
