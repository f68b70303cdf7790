import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIEmbed, APIMessage } from "discord-api-types/v10";
import { type Logger, pino } from "pino";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createMediaClient, type MediaClient } from "../../src/core/api/client.js";
import { type Bot, createBot } from "../../src/core/bot.js";
import { Intake, type IntakeOptions } from "../../src/core/intake/intake.js";
import type { RateLimits } from "../../src/core/intake/rates.js";
import { type PollPolicy, scaledPolicy } from "../../src/core/jobs/policy.js";
import type { SharedKeyTenants } from "../../src/core/tenancy/tenancy.js";
import { decodeControlId } from "../../src/discord/custom-id.js";
import { INTERACTIONS_PATH } from "../../src/discord/http/index.js";
import { type DiscordConfig, type RunningDiscord, startDiscord } from "../../src/discord/index.js";
import { type HttpServer, startHttpServer } from "../../src/http/index.js";
import { openStores, type Stores } from "../../src/store/index.js";
import {
  type CallbackRecord,
  type CommandInput,
  type FakeDiscord,
  type FakeDiscordOptions,
  type InjectedInteraction,
  startFakeDiscord,
} from "../fakes/discord/index.js";
import { type Emulator, type EmulatorOptions, startEmulator } from "../fakes/media-api/index.js";
import { solidPng } from "../fakes/media-api/png.js";

/**
 * The whole bot over real parts, as in production: the real discord.js client logged in to the
 * fake Discord (gateway + REST, every body checked against discord-api-spec), the real core and
 * job engine against the media API emulator, and sqlite stores in a temp dir. Job durations are
 * compressed to milliseconds; the fake's clock (interaction token ages) moves only when a test says.
 */

export const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
const SECRETS_KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;

export interface WorldOptions {
  fake?: FakeDiscordOptions;
  emulator?: EmulatorOptions;
  /**
   * MEDIA_API_KEY_TENANTS, or what to make it of the fake's seeded ids. Default the seeded guild
   * alone, which then has the account to itself.
   */
  apiKeyTenants?: SharedKeyTenants | ((fake: FakeDiscord) => SharedKeyTenants);
  /**
   * Registers the commands globally (no DISCORD_GUILD_ID), as production does: only global
   * commands reach user installs, DMs and group DMs. Default in the seeded guild, at once.
   */
  globalCommands?: boolean;
  /** Command rates; default none. */
  rates?: RateLimits;
  /** The bot's MEDIA_API_KEY; undefined: tenants must run setup. */
  apiKey?: string | null;
  /**
   * How interactions reach the bot. "http": DISCORD_PUBLIC_KEY is the fake's key, the bot serves
   * POST /discord/interactions on its own HTTP server (no gateway), and the fake's Interactions
   * Endpoint URL points there. Default "gateway".
   */
  interactions?: "gateway" | "http";
  /**
   * The windows of the bot's HTTP server's intake, which the interactions' work and the engine
   * wait on while a burst arrives (as the app wires them); default the bot's own. In "gateway"
   * mode, given, the bot has that HTTP server beside the gateway, as `npm start` has.
   */
  intake?: IntakeOptions;
  /** DISCORD_SHARDS; default none (one shard). */
  shards?: DiscordConfig["shards"];
  /**
   * Changes to the bot's poll policy (the production one with durations scaled down), for worlds
   * whose service jobs end only when the test moves the emulator's clock; default none.
   */
  policy?: (scaled: PollPolicy) => PollPolicy;
  /** Where the bot, its media client and discord.js write their log; default `silent`. */
  logger?: Logger;
}

export class DiscordWorld {
  private constructor(
    readonly fake: FakeDiscord,
    readonly emu: Emulator,
    readonly dir: string,
    private readonly options: WorldOptions,
    public stores: Stores,
    public media: MediaClient,
    public bot: Bot,
    public discord: RunningDiscord,
    /** The bot's HTTP server, in "http" mode (and in "gateway" mode with `intake`). */
    public http: HttpServer | undefined,
    /** How far the bot's clock runs behind Discord's, for interaction token ages. */
    readonly skew: { ms: number },
  ) {}

  static async start(options: WorldOptions = {}): Promise<DiscordWorld> {
    const fake = await startFakeDiscord(options.fake);
    const emu = await startEmulator({ timeScale: 0.002, ...options.emulator });
    emu.account("test-key").creditsLimit = 1_000_000;
    const dir = mkdtempSync(join(tmpdir(), "discord-world-"));
    const skew = { ms: 0 };
    const parts = await DiscordWorld.bot(fake, emu, dir, options, skew);
    return new DiscordWorld(
      fake,
      emu,
      dir,
      options,
      parts.stores,
      parts.media,
      parts.bot,
      parts.discord,
      parts.http,
      skew,
    );
  }

  private static async bot(
    fake: FakeDiscord,
    emu: Emulator,
    dir: string,
    options: WorldOptions,
    skew: { ms: number },
  ) {
    const logger = options.logger ?? silent;
    const stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, SECRETS_KEY, silent);
    const media = createMediaClient({
      baseUrl: emu.url,
      timeoutMs: 5_000,
      retries: { maxRetries: 2, minDelayMs: 5, maxDelayMs: 20 },
      logger,
    });
    const apiKey = options.apiKey === undefined ? "test-key" : (options.apiKey ?? undefined);
    const overHttp = options.interactions === "http";
    const http =
      overHttp || options.intake
        ? await startHttpServer({
            port: 0,
            logger: silent,
            ...(options.intake && { intake: new Intake(options.intake) }),
          })
        : undefined;
    const bot = createBot({
      config: {
        media: {
          url: emu.url,
          apiKey,
          apiKeyTenants:
            typeof options.apiKeyTenants === "function"
              ? options.apiKeyTenants(fake)
              : (options.apiKeyTenants ?? [fake.guild.id]),
          thumbnailsListPath: "/api/thumbnails",
        },
        ...(options.rates && { rates: options.rates }),
      },
      media,
      stores,
      engine: {
        policy: options.policy?.(scaledPolicy(0.005)) ?? scaledPolicy(0.005),
        ...(http && { intake: http.intake }),
      },
      logger,
    });
    const discord = await startDiscord({
      config: {
        token: fake.token,
        restUrl: fake.restUrl,
        ...(!options.globalCommands && { guildId: fake.guild.id }),
        ...(overHttp && { publicKey: fake.publicKey }),
        ...(options.shards && { shards: options.shards }),
      },
      bot,
      logger,
      store: stores.keyv("discord"),
      stores,
      ...(http && { http }),
      clock: { now: () => fake.clock.now() - skew.ms },
    });
    if (overHttp && http) await fake.setInteractionsEndpoint(`${http.url}${INTERACTIONS_PATH}`);
    await bot.start();
    return { stores, media, bot, discord, http };
  }

  /** A stop and a new client, bot and stores over the same sqlite file, Discord and service. */
  async restart(): Promise<void> {
    await this.shutdown();
    const parts = await DiscordWorld.bot(this.fake, this.emu, this.dir, this.options, this.skew);
    Object.assign(this, parts);
  }

  async shutdown(): Promise<void> {
    await this.discord.stop();
    await this.bot.stop();
    await this.media.close();
    await this.stores.close();
    await this.http?.close();
  }

  async close(): Promise<void> {
    await this.shutdown();
    await this.emu.close();
    await this.fake.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  // ---- driving and reading -----------------------------------------------------------------

  /** `/name [subcommand] options...` in the seeded channel, as the requester unless said otherwise. */
  command(input: CommandInput): Promise<InjectedInteraction> {
    return this.fake.sendCommand(input);
  }

  /** Polls until `check` gives something; generous, since the whole suite may share the CPU. */
  until<T>(check: () => T | undefined | null | false, timeoutMs = 25_000): Promise<T> {
    return this.fake.waitFor(check, timeoutMs);
  }

  /** The first answer to an interaction: its reply once it is more than "thinking…", or its first followup. */
  answer(interaction: InjectedInteraction): Promise<APIMessage> {
    return this.until(() => {
      const original = this.fake.original(interaction.id);
      if (original && !((original.flags ?? 0) & LOADING)) return original;
      return this.fake.followups(interaction.id)[0];
    });
  }

  /** The first response to an interaction (defer, modal, autocomplete choices...). */
  firstResponse(interaction: InjectedInteraction): Promise<CallbackRecord> {
    return this.until(() => this.fake.callbacks(interaction.id)[0]);
  }

  /** Runs a command and resolves with its answer. */
  async run(input: CommandInput): Promise<APIMessage> {
    return this.answer(await this.command(input));
  }

  /** The job message of a command once it shows `match` (by default: the job ended). */
  async jobMessage(
    interaction: InjectedInteraction,
    match: (m: APIMessage) => boolean = ended,
  ): Promise<APIMessage> {
    await this.answer(interaction);
    return this.until(() => {
      const message = this.fake.original(interaction.id);
      return message && match(message) ? message : undefined;
    });
  }

  /** The channel posts that mention `userId` (the "ready" notices). */
  notices(userId = this.fake.users.requester.id): APIMessage[] {
    return this.fake.messages().filter((m) => m.content.includes(`<@${userId}>`));
  }

  /** The custom_id of the control on `message` that does `action` (with `value`). */
  controlId(message: APIMessage, action: string, value?: string): string {
    const ids = JSON.stringify(message.components ?? []).matchAll(/"custom_id":"([^"]+)"/g);
    const found = [...ids]
      .map((m) => m[1]!)
      .find((id) => {
        const control = decodeControlId(id);
        return control?.action === action && control.value === value;
      });
    if (!found) throw new Error(`message ${message.id} has no control ${action} ${value ?? ""}`);
    return found;
  }

  creations(path: string | RegExp) {
    return this.emu.callsTo("POST", path);
  }

  png(name = "photo.png", rgb: [number, number, number] = [200, 40, 40]) {
    return { name, contentType: "image/png", data: solidPng(rgb) };
  }
}

export function isEphemeral(message: APIMessage): boolean {
  return Boolean((message.flags ?? 0) & EPHEMERAL);
}

/** A job's card colour says how it ended: green done, red failed. */
export function ended(message: APIMessage): boolean {
  const colour = message.embeds[0]?.color;
  return colour === 0x57f287 || colour === 0xed4245;
}

/** Everything an embed shows, as one string, for `toContain` checks. */
export function shown(message: Pick<APIMessage, "content" | "embeds">): string {
  const embed = (e: APIEmbed) =>
    [e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value]), e.footer?.text].join(
      "\n",
    );
  return [message.content, ...message.embeds.map(embed)].join("\n");
}

/**
 * One fake Discord and one bot for all the tests of a file (starting them costs about a second),
 * handed to `use` once started and closed after the file. Each test ends with no request Discord
 * would have refused.
 */
export function discordWorldPerFile(use: (world: DiscordWorld) => void, options: WorldOptions = {}): void {
  let world: DiscordWorld | undefined;
  beforeAll(async () => {
    world = await DiscordWorld.start(options);
    use(world);
  });
  afterEach(() => {
    world?.fake.assertNoValidationErrors();
  });
  afterAll(async () => {
    await world?.close();
  });
}
