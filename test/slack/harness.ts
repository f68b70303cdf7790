import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createMediaClient, type MediaClient } from "../../src/core/api/client.js";
import { type Bot, createBot } from "../../src/core/bot.js";
import { Intake, type IntakeOptions } from "../../src/core/intake/intake.js";
import type { RateLimits } from "../../src/core/intake/rates.js";
import { type PollPolicy, scaledPolicy } from "../../src/core/jobs/policy.js";
import type { SharedKeyTenants } from "../../src/core/tenancy/tenancy.js";
import { type HttpServer, startHttpServer } from "../../src/http/index.js";
import type { PacingPolicy } from "../../src/slack/calls.js";
import {
  INSTALL_PATH,
  REDIRECT_PATH,
  type RunningSlack,
  type SlackConfig,
  startSlack,
} from "../../src/slack/index.js";
import { openStores, type Stores } from "../../src/store/index.js";
import { type Emulator, type EmulatorOptions, startEmulator } from "../fakes/media-api/index.js";
import { solidPng } from "../fakes/media-api/png.js";
import {
  type FakeSlack,
  type FakeSlackOptions,
  type InputValue,
  type Message,
  type SlackFile,
  type SlackView,
  startFakeSlack,
  type Workspace,
} from "../fakes/slack/index.js";

/**
 * The whole bot over real parts, as in production: the real Bolt app (HTTP, or Socket Mode)
 * against the fake Slack, the real core and job engine against the media API emulator, and
 * sqlite stores in a temp dir. Job durations are compressed to milliseconds.
 */

export const silent = pino({ level: "silent" });

/**
 * Slack's minute in these worlds: the fake Slack holds every method to its tier per "minute" and
 * the bot paces to the same one, so that each test runs against a Slack that says no, in a
 * fraction of the time. Tests of the pacing itself use Slack's real minute.
 */
export const MINUTE_MS = 1_000;
/** The fake Slack of these worlds: tiers on, and uploaded files processed for a moment. */
export const FAKE_SLACK: FakeSlackOptions = { tiers: { minuteMs: MINUTE_MS }, fileProcessingMs: 30 };
/** The bot's pacing, waits and retries at the worlds' pace. */
export const PACING: Partial<PacingPolicy> = {
  minuteMs: MINUTE_MS,
  backoffBaseMs: 20,
  backoffMaxMs: 100,
  fileReadyMs: 2_000,
  fileReadyPollMs: 10,
};
const SECRETS_KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/** SLACK_STATE_SECRET of the OAuth worlds. */
export const STATE_SECRET = "state-secret-of-the-oauth-tests";

export interface WorldOptions {
  socketMode?: boolean;
  emulator?: EmulatorOptions;
  /** MEDIA_API_KEY_TENANTS. Default the fake's workspace alone, which then has the account to itself. */
  apiKeyTenants?: SharedKeyTenants;
  /** Command rates; default none. */
  rates?: RateLimits;
  /**
   * OAuth installs (SLACK_CLIENT_ID, ...) instead of the fake's preinstalled bot token: workspaces
   * get the app through `installWorkspace`.
   */
  oauth?: boolean;
  /**
   * The bot's own HTTP server (as the app runs it) whose arrivals hold the work behind the acks
   * with these windows; default: Slack's server of its own, with the default windows.
   */
  intake?: IntakeOptions;
  /** The bot's pacing (default PACING). */
  pacing?: Partial<PacingPolicy>;
  /**
   * Changes to the bot's poll policy (the production one with durations scaled down), for worlds
   * whose service jobs end only when the test moves the emulator's clock; default none.
   */
  policy?: (scaled: PollPolicy) => PollPolicy;
  /** Where the bot logs (default nowhere). */
  logger?: Logger;
}

export class SlackWorld {
  private constructor(
    readonly fake: FakeSlack,
    readonly emu: Emulator,
    readonly dir: string,
    private readonly options: WorldOptions,
    public stores: Stores,
    public client: MediaClient,
    public bot: Bot,
    public slack: RunningSlack,
    /** The bot's own HTTP server, with world option `intake`. */
    public http: HttpServer | undefined,
  ) {}

  static async start(fake: FakeSlack, options: WorldOptions = {}): Promise<SlackWorld> {
    const emu = await startEmulator({ timeScale: 0.002, ...options.emulator });
    emu.account("test-key").creditsLimit = 1_000_000;
    const dir = mkdtempSync(join(tmpdir(), "slack-world-"));
    const parts = await SlackWorld.bot(fake, emu, dir, options);
    return new SlackWorld(
      fake,
      emu,
      dir,
      options,
      parts.stores,
      parts.client,
      parts.bot,
      parts.slack,
      parts.http,
    );
  }

  private static async bot(fake: FakeSlack, emu: Emulator, dir: string, options: WorldOptions) {
    const logger = options.logger ?? silent;
    const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, SECRETS_KEY, logger);
    const http = options.intake
      ? await startHttpServer({ port: 0, logger, intake: new Intake(options.intake) })
      : undefined;
    const client = createMediaClient({
      baseUrl: emu.url,
      timeoutMs: 5_000,
      retries: { maxRetries: 2, minDelayMs: 5, maxDelayMs: 20 },
      logger,
    });
    const bot = createBot({
      config: {
        media: {
          url: emu.url,
          apiKey: "test-key",
          apiKeyTenants: options.apiKeyTenants ?? [fake.teamId],
          thumbnailsListPath: "/api/thumbnails",
        },
        ...(options.rates && { rates: options.rates }),
      },
      media: client,
      stores,
      engine: {
        policy: options.policy?.(scaledPolicy(0.005)) ?? scaledPolicy(0.005),
        ...(http && { intake: http.intake }),
      },
      logger,
      // Homes follow their jobs within a fraction of a second, as the scaled jobs run.
      homes: { gapMs: 300, settleMs: 50 },
    });
    const config: SlackConfig = {
      ...(options.oauth
        ? { oauth: { clientId: fake.clientId, clientSecret: fake.clientSecret, stateSecret: STATE_SECRET } }
        : { botToken: fake.botToken }),
      signingSecret: fake.signingSecret,
      ...(options.socketMode && { appToken: fake.appToken }),
      port: 0,
      apiUrl: fake.apiUrl,
    };
    const slack = await startSlack({
      ...(http && { http }),
      config,
      bot,
      logger,
      store: stores.keyv("slack"),
      claims: stores.claims,
      installations: stores.installations,
      clientOptions: { retryConfig: { retries: 0 } },
      pacing: options.pacing ?? PACING,
    });
    // The app's Redirect URL, as set on its OAuth & Permissions page (each start has a new port).
    if (slack.installUrl)
      fake.redirectUrls.splice(0, Infinity, slack.installUrl.replace(INSTALL_PATH, REDIRECT_PATH));
    await bot.start();
    return { stores, client, bot, slack, http };
  }

  get eventsUrl(): string {
    if (!this.slack.eventsUrl) throw new Error("the Slack app runs in Socket Mode");
    return this.slack.eventsUrl;
  }

  get installUrl(): string {
    if (!this.slack.installUrl) throw new Error("the Slack app runs without OAuth");
    return this.slack.installUrl;
  }

  /**
   * A new workspace of the fake Slack with the app installed through OAuth, as its admin would:
   * GET /slack/install, Slack's consent page, GET /slack/oauth_redirect (world option `oauth`).
   */
  async installWorkspace(name: string): Promise<Workspace> {
    const workspace = this.fake.addWorkspace(name);
    const installed = await this.fake.install(this.installUrl, workspace.id);
    if (installed.status !== 200)
      throw new Error(`install of ${name} failed: ${installed.status} ${installed.body}`);
    return workspace;
  }

  /** A stop and a new process over the same sqlite file, the same Slack and the same service. */
  async restart(): Promise<void> {
    await this.shutdown();
    const parts = await SlackWorld.bot(this.fake, this.emu, this.dir, this.options);
    Object.assign(this, parts);
  }

  async shutdown(): Promise<void> {
    await this.slack.stop();
    await this.http?.close();
    await this.bot.stop();
    await this.client.close();
    await this.stores.close();
  }

  async close(): Promise<void> {
    await this.shutdown();
    await this.emu.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  // ---- driving and reading -----------------------------------------------------------------

  /** `/media <text>`, signed, as `user`; resolves with Bolt's answer. */
  async command(text: string, user = this.fake.users.requester.id) {
    return this.fake.slashCommand(this.eventsUrl, { text, user });
  }

  /** Polls until `predicate` gives something; generous, since the whole suite may share the CPU. */
  until<T>(predicate: () => T | undefined | null | false, timeoutMs = 25_000): Promise<T> {
    return this.fake.waitFor(predicate, timeoutMs);
  }

  /** Runs a command and resolves with the next ephemeral answer `user` gets, as text. */
  async answer(text: string, user = this.fake.users.requester.id): Promise<string> {
    const before = this.ephemeralTexts(user).length;
    await this.command(text, user);
    return this.until(() => this.ephemeralTexts(user)[before]);
  }

  /** Runs a command that starts a job and resolves with its message once the job ended. */
  async job(text: string, user = this.fake.users.requester.id): Promise<Message> {
    const before = this.jobCount();
    await this.command(text, user);
    return this.finished((await this.jobMessage(before)).ts);
  }

  /** Runs a command that needs a form and resolves with the modal Slack shows. */
  async openForm(text: string, user = this.fake.users.requester.id): Promise<SlackView> {
    const before = this.fake.views.length;
    await this.command(text, user);
    return this.until(() => this.fake.views[before]);
  }

  submit(view: SlackView, values: Record<string, InputValue>, user = view.user) {
    return this.fake.viewSubmission(this.eventsUrl, { viewId: view.id, values, user });
  }

  /** A PNG a user attached in Slack. */
  png(name = "photo.png", rgb: [number, number, number] = [200, 40, 40]): SlackFile {
    return this.fake.addUserFile(solidPng(rgb), { name, mimetype: "image/png" });
  }

  /** Top-level messages of the channel (thread replies left out). */
  channelMessages(): Message[] {
    return this.fake.messages().filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
  }

  replies(ts: string): Message[] {
    return this.fake.messages().filter((m) => m.thread_ts === ts && m.ts !== ts);
  }

  /** How many job messages the channel holds (a new one's index). */
  jobCount(): number {
    return this.channelMessages().filter((m) => jobIdOf(m)).length;
  }

  /** The job message a command posted (its footer names the job), waiting for it to appear. */
  async jobMessage(index = 0): Promise<Message> {
    return this.until(() => this.channelMessages().filter((m) => jobIdOf(m))[index]);
  }

  /** The message once the job ended (✅ or ❌) and the requester was notified. */
  async finished(ts: string, timeoutMs = 25_000): Promise<Message> {
    return this.until(() => {
      const message = this.fake.messages().find((m) => m.ts === ts);
      const id = message && jobIdOf(message);
      const header = message && headerOf(message);
      const notified = this.channelMessages().some((m) => m.ts > ts && !jobIdOf(m) && m.text.includes("<@"));
      return id && notified && (header?.startsWith("✅") || header?.startsWith("❌")) ? message : undefined;
    }, timeoutMs);
  }

  /** Waits until the message shows something `match` accepts. */
  async shows(ts: string, match: (m: Message) => boolean, timeoutMs = 25_000): Promise<Message> {
    return this.until(() => {
      const message = this.fake.messages().find((m) => m.ts === ts);
      return message && match(message) ? message : undefined;
    }, timeoutMs);
  }

  /** The ephemeral answers a user got, newest last, as text. */
  ephemeralTexts(user = this.fake.users.requester.id): string[] {
    return this.fake
      .ephemerals()
      .filter((m) => m.user === user)
      .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);
  }

  creations(path: string | RegExp) {
    return this.emu.callsTo("POST", path);
  }
}

/**
 * One fake Slack and one bot for all the tests of a file (starting them costs about a second),
 * handed to `use` once started and closed after the file.
 */
export function slackWorldPerFile(
  use: (world: SlackWorld) => void,
  options: WorldOptions = {},
  fake: FakeSlackOptions = FAKE_SLACK,
): void {
  let world: SlackWorld | undefined;
  beforeAll(async () => {
    world = await SlackWorld.start(await startFakeSlack(fake), options);
    use(world);
  });
  afterAll(async () => {
    await world?.close();
    await world?.fake.close();
  });
}

/**
 * A fake Slack and a bot of its own for each test that changes them for good (deleted messages
 * and channels, restarts): the returned function starts them, and they are closed after the test.
 */
export function slackWorldPerTest(
  use: (world: SlackWorld) => void,
  options: WorldOptions = {},
  fake: FakeSlackOptions = FAKE_SLACK,
): () => Promise<void> {
  let world: SlackWorld | undefined;
  afterEach(async () => {
    await world?.close();
    await world?.fake.close();
    world = undefined;
  });
  return async () => {
    world = await SlackWorld.start(await startFakeSlack(fake), options);
    use(world);
  };
}

export function headerOf(message: Pick<Message, "blocks">): string | undefined {
  const header = message.blocks.find((b) => b.type === "header") as { text?: { text?: string } } | undefined;
  return header?.text?.text;
}

/** The job id in a job message's footer ("Job <id>"). */
export function jobIdOf(message: Pick<Message, "blocks">): string | undefined {
  const json = JSON.stringify(message.blocks);
  return /"text":"Job ([\w-]+)"/.exec(json)?.[1];
}

/** Everything a message shows, as one string, for `toContain` checks. */
export function shown(message: Pick<Message, "text" | "blocks">): string {
  return `${message.text}\n${JSON.stringify(message.blocks)}`;
}

/** The action_ids of a message's controls. */
export function actionIds(message: Pick<Message, "blocks">): string[] {
  return [...JSON.stringify(message.blocks).matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1]!);
}
