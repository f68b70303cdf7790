import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeDiscord, startFakeDiscord } from "./fakes/discord/index.js";
import { type Emulator, startEmulator } from "./fakes/media-api/index.js";
import { type HttpProxy, type ProxiedAnswer, startProxy } from "./fakes/proxy.js";
import { type FakeSlack, startFakeSlack } from "./fakes/slack/index.js";
import { BotProcess, type Entry, freePort } from "./main-process.js";

/**
 * The three remote services and the real bot process between them, for killing the bot: the
 * emulator, the fake Discord and the fake Slack each behind a proxy (the bot's MEDIA_API_URL,
 * DISCORD_REST_URL and SLACK_API_URL), so that the caller hears of each request as it arrives and
 * can kill the bot during it. Each instance has a proxy of its own to the emulator, so what it
 * polls is told apart from what another instance polls. The bot runs from `src/main.ts` (or
 * `dist/main.js`) with a fixed INSTANCE_ID, on a store in a temp dir that outlives each process.
 */

export const STATUS_PATH =
  /^\/api\/(video\/[^/]+\/status|avatar\/jobs\/[^/]+\/status|image\/(?!generate$|edit$|inpaint$)[^/]+|mockup\/[^/]+\/status|thumbnail\/(?!generate$)[^/]+)$/;

export interface CrashWorldOptions {
  /** The emulator's time scale (default 0.02: a 20 s image takes 400 ms). */
  timeScale?: number;
  entry?: Entry;
  /** Default: a sqlite file in the world's temp dir. */
  storeUrl?: string;
  /** Without Discord the bot runs Slack alone (several instances cannot share the fake's one gateway session). */
  discord?: boolean;
  /** Keeps each process's log lines in `<logDir>/<instance>-<n>.log` (n counts its starts). */
  logDir?: string;
  /** More settings of the bot's environment (JOB_RETENTION_DAYS for a soak). */
  env?: Record<string, string>;
  /**
   * Slack installed through OAuth (install()), in as many workspaces as the test installs it in,
   * instead of the one preinstalled bot token.
   */
  slackInstalls?: boolean;
}

export interface Instance {
  id: string;
  bot: BotProcess;
  /** Where the fake Slack sends this instance's commands and clicks. */
  slackEventsUrl: string;
  /** This instance's way to the emulator (the same across its restarts). */
  media: HttpProxy;
}

interface Seat {
  slackPort: number;
  media: HttpProxy;
}

export class CrashWorld {
  /** What an instance keeps across its restarts. */
  private readonly seats = new Map<string, Seat>();
  private starts = 0;

  private constructor(
    readonly emu: Emulator,
    readonly slack: FakeSlack,
    readonly discord: FakeDiscord | undefined,
    readonly slackApi: HttpProxy,
    readonly discordRest: HttpProxy | undefined,
    readonly dir: string,
    private readonly options: CrashWorldOptions,
    /** How far the emulator's clock runs ahead of the real one (finishServiceJobs). */
    private readonly service: { aheadMs: number },
  ) {}

  static async start(options: CrashWorldOptions = {}): Promise<CrashWorld> {
    const service = { aheadMs: 0 };
    const emu = await startEmulator({
      timeScale: options.timeScale ?? 0.02,
      now: () => Date.now() + service.aheadMs,
    });
    // A campaign sends more jobs than a plan's monthly quotas allow: every creation is accepted.
    const account = emu.account("test-key");
    account.creditsLimit = 1e9;
    for (const usage of Object.values(account.usage)) usage.limit = "unlimited";
    const slack = await startFakeSlack();
    const discord = options.discord === false ? undefined : await startFakeDiscord();
    const slackApi = await startProxy(new URL(slack.apiUrl).origin);
    // The bot trusts its SLACK_API_URL's host with the token of a file download, as Slack's file hosts.
    slack.serveFilesFrom(slackApi.url);
    const discordRest = discord && (await startProxy(new URL(discord.restUrl).origin));
    const dir = mkdtempSync(join(tmpdir(), "crash-world-"));
    return new CrashWorld(emu, slack, discord, slackApi, discordRest, dir, options, service);
  }

  /**
   * Moves the emulator's clock `ms` ahead (the bot's is untouched): its jobs that had that long
   * left are done at their next status read. A test keeps jobs running for as long as a loaded
   * machine needs to reach the point it is about, then ends them at once.
   */
  finishServiceJobs(ms: number): void {
    this.service.aheadMs += ms;
  }

  get storeUrl(): string {
    return this.options.storeUrl ?? `sqlite://${join(this.dir, "bot.sqlite")}`;
  }

  /** Starts an instance (again, after a kill: same INSTANCE_ID, same Slack port) and waits until it runs. */
  async startInstance(id: string): Promise<Instance> {
    let seat = this.seats.get(id);
    if (!seat) {
      seat = { slackPort: await freePort(), media: await startProxy(this.emu.url) };
      this.seats.set(id, seat);
    }
    const bot = BotProcess.start(
      {
        INSTANCE_ID: id,
        MEDIA_API_URL: seat.media.url,
        MEDIA_API_KEY: "test-key",
        MEDIA_API_KEY_TENANTS: "*",
        STORE_URL: this.storeUrl,
        ...(this.options.slackInstalls
          ? {
              SLACK_CLIENT_ID: this.slack.clientId,
              SLACK_CLIENT_SECRET: this.slack.clientSecret,
              SLACK_STATE_SECRET: "the-crash-world-install-state-secret",
              SECRETS_KEY: "7f".repeat(32),
            }
          : { SLACK_BOT_TOKEN: this.slack.botToken }),
        SLACK_SIGNING_SECRET: this.slack.signingSecret,
        SLACK_API_URL: `${this.slackApi.url}/api/`,
        SLACK_PORT: String(seat.slackPort),
        ...(this.discord &&
          this.discordRest && {
            DISCORD_TOKEN: this.discord.token,
            DISCORD_REST_URL: `${this.discordRest.url}/api`,
            DISCORD_GUILD_ID: this.discord.guild.id,
          }),
        ...this.options.env,
      },
      this.options.entry,
      this.options.logDir && join(this.options.logDir, `${id}-${++this.starts}.log`),
    );
    try {
      await bot.ready();
    } catch (error) {
      await bot.kill();
      throw error;
    }
    return { id, bot, slackEventsUrl: `http://127.0.0.1:${seat.slackPort}/slack/events`, media: seat.media };
  }

  /** An admin of `teamId` installs the app from `instance`'s install link (slackInstalls). */
  async install(instance: Instance, teamId: string): Promise<void> {
    const origin = new URL(instance.slackEventsUrl).origin;
    this.slack.redirectUrls.splice(0, Infinity, `${origin}/slack/oauth_redirect`);
    const installed = await this.slack.install(`${origin}/slack/install`, teamId);
    if (installed.status !== 200) throw new Error(`install failed: ${installed.status} ${installed.body}`);
  }

  async close(): Promise<void> {
    const proxies = [...this.seats.values()].map((seat) => seat.media);
    await Promise.all([...proxies, this.slackApi, this.discordRest].map((proxy) => proxy?.close()));
    await Promise.all([this.emu.close(), this.slack.close(), this.discord?.close()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * SIGKILLs `victim` once a remote answered the first request that `matches`, before the answer
 * can reach the bot; resolves once the bot is dead.
 */
export function killOnAnswer(
  proxy: { onAnswer(listener: (a: ProxiedAnswer) => void): () => void },
  matches: (a: ProxiedAnswer) => boolean,
  victim: Instance,
): Promise<void> {
  return new Promise((killed) => {
    const stop = proxy.onAnswer((answer) => {
      if (answer.status !== 200 || !matches(answer)) return;
      stop();
      void victim.bot.kill().then(killed);
    });
  });
}
