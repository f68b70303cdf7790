import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Balancer, startBalancer } from "./balancer.js";
import { type FakeDiscord, startFakeDiscord } from "./fakes/discord/index.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack, type Workspace } from "./fakes/slack/index.js";
import { BotProcess } from "./main-process.js";

/**
 * Several real bot processes (`node dist/main.js`) on one redis, behind a round-robin balancer in
 * front of their one HTTP server each, as an operator runs replicas: Slack installed in workspaces
 * through OAuth (GET /slack/install, /slack/oauth_redirect, POST /slack/events) and Discord over
 * HTTP interactions (POST /discord/interactions). The emulator, the fake Slack and the fake
 * Discord are shared; each replica has its own INSTANCE_ID and port.
 */

const root = fileURLToPath(new URL("..", import.meta.url));

export interface ReplicaWorldOptions {
  replicas: number;
  /** STORE_URL; unset with `env` naming REDIS_SENTINELS. */
  redisUrl?: string;
  /** More of each replica's environment (REDIS_SENTINELS and REDIS_SENTINEL_NAME). */
  env?: Record<string, string>;
  /** The emulator's time scale (a 20 s image takes 20 s × this). */
  timeScale: number;
}

export interface Replica {
  id: string;
  origin: string;
  bot: BotProcess;
  /** Every line the replica logged, for tests that read its whole log. */
  logFile: string;
}

export class ReplicaWorld {
  private constructor(
    readonly emu: Emulator,
    readonly slack: FakeSlack,
    readonly discord: FakeDiscord,
    readonly replicas: Replica[],
    readonly balancer: Balancer,
  ) {}

  /** Builds dist/ when a source is newer than it (once per clone), then starts every replica. */
  static async start(options: ReplicaWorldOptions): Promise<ReplicaWorld> {
    execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: root, stdio: "ignore" });
    const emu = await startEmulator({ timeScale: options.timeScale });
    emu.account("test-key").creditsLimit = 1e9;
    const slack = await startFakeSlack();
    const discord = await startFakeDiscord();
    const logs = mkdtempSync(join(tmpdir(), "replicas-"));
    const replicas = await Promise.all(
      Array.from({ length: options.replicas }, async (_, i) => {
        const id = `replica-${i}`;
        const logFile = join(logs, `${id}.log`);
        const bot = BotProcess.start(
          {
            INSTANCE_ID: id,
            MEDIA_API_URL: emu.url,
            MEDIA_API_KEY: "test-key",
            MEDIA_API_KEY_TENANTS: "*",
            ...(options.redisUrl && { STORE_URL: options.redisUrl }),
            SECRETS_KEY: "7f".repeat(32),
            SLACK_CLIENT_ID: slack.clientId,
            SLACK_CLIENT_SECRET: slack.clientSecret,
            SLACK_STATE_SECRET: "the-replicas-share-this-state-secret",
            SLACK_SIGNING_SECRET: slack.signingSecret,
            SLACK_API_URL: slack.apiUrl,
            DISCORD_TOKEN: discord.token,
            DISCORD_REST_URL: discord.restUrl,
            DISCORD_GUILD_ID: discord.guild.id,
            DISCORD_PUBLIC_KEY: discord.publicKey,
            ...options.env,
          },
          "dist",
          logFile,
        );
        return { id, bot, logFile };
      }),
    );
    try {
      await Promise.all(replicas.map((r) => r.bot.ready()));
    } catch (error) {
      await Promise.all(replicas.map((r) => r.bot.kill()));
      await Promise.all([emu.close(), slack.close(), discord.close()]);
      throw error;
    }
    // Each took a free port of its own (PORT 0): one picked beforehand could be taken meanwhile.
    const placed = replicas.map((r) => ({ ...r, origin: r.bot.origin }));
    const balancer = await startBalancer(placed.map((r) => r.origin));
    // The app's settings, as saved in the two portals: both point at the balancer.
    slack.redirectUrls.splice(0, Infinity, `${balancer.url}/slack/oauth_redirect`);
    await discord.setInteractionsEndpoint(`${balancer.url}/discord/interactions`);
    return new ReplicaWorld(emu, slack, discord, placed, balancer);
  }

  /** Where Slack sends commands and clicks: the balancer. */
  get slackEventsUrl(): string {
    return `${this.balancer.url}/slack/events`;
  }

  /** An admin of `teamId` installs the app through the balancer, as from the app's install link. */
  async install(teamId: string): Promise<Workspace> {
    const installed = await this.slack.install(`${this.balancer.url}/slack/install`, teamId);
    if (installed.status !== 200) throw new Error(`install failed: ${installed.status} ${installed.body}`);
    return this.slack.workspace(teamId);
  }

  /** The replicas' logs, for the message of a failed wait. */
  tails(lines = 15): string {
    return this.replicas.map((r) => `--- ${r.id}\n${r.bot.tail(lines)}`).join("\n");
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.bot.kill()));
    await this.balancer.close();
    await Promise.all([this.emu.close(), this.slack.close(), this.discord.close()]);
  }
}
