import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createMediaClient, type MediaClient } from "../../../src/core/api/client.js";
import { type Card, isCard, plainText } from "../../../src/core/base/cards.js";
import type {
  ActionEvent,
  Actor,
  Attachment,
  ConversationRef,
  MessageRef,
} from "../../../src/core/base/ports.js";
import { type Bot, createBot } from "../../../src/core/bot.js";
import type { RateLimits } from "../../../src/core/intake/rates.js";
import { scaledPolicy } from "../../../src/core/jobs/policy.js";
import type { SharedKeyTenants } from "../../../src/core/tenancy/tenancy.js";
import { openStores, type Stores } from "../../../src/store/index.js";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../fakes/media-api/index.js";
import { solidPng } from "../../fakes/media-api/png.js";
import { eventually, FakeAdapter } from "../fake-adapter.js";

/**
 * A whole bot over real parts: the media API emulator, sqlite stores in a temp dir, the real
 * client and engine, and a FakeAdapter as the chat platform. Durations are compressed: the
 * emulator's jobs take milliseconds and the engine's policy is scaled to match.
 */

export const SECRETS_KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
export const CHANNEL: ConversationRef = { platform: "discord", channelId: "channel-1" };

export function actor(overrides: Partial<Actor> = {}): Actor {
  return {
    platform: "discord",
    tenantId: "guild-1",
    userId: "user-1",
    isAdmin: false,
    roleIds: [],
    ...overrides,
  };
}

export const admin = () => actor({ userId: "admin-1", isAdmin: true });

export function png(
  name = "photo.png",
  rgb: [number, number, number] = [200, 40, 40],
): Attachment & { bytes: Buffer } {
  const bytes = solidPng(rgb);
  return {
    name,
    contentType: "image/png",
    size: bytes.length,
    bytes,
    open: async () => Readable.from([bytes]),
  };
}

export function file(name: string, contentType: string, size: number): Attachment {
  return { name, contentType, size, open: async () => Readable.from([Buffer.alloc(size, 1)]) };
}

export interface HarnessOptions {
  emulator?: EmulatorOptions;
  /** MEDIA_API_KEY; null for none. Default test-key. */
  fallbackKey?: string | null;
  /** MEDIA_API_KEY_TENANTS. Default guild-1 alone, which then has the account to itself. */
  apiKeyTenants?: SharedKeyTenants;
  rates?: RateLimits;
  jobLimit?: number;
  /** Shares another harness's sqlite file (a restart). */
  storeDir?: string;
  /** Where the client sends its calls (a proxy in front of the emulator); default the emulator. */
  mediaUrl?: string;
  /** The client's deadline per call. Default 5 s. */
  timeoutMs?: number;
  /** JOB_RETENTION_DAYS. Default 30. */
  retentionDays?: number;
}

export class Harness {
  readonly chat = new FakeAdapter("discord");
  private running = true;
  private constructor(
    readonly emu: Emulator,
    readonly dir: string,
    public stores: Stores,
    public client: MediaClient,
    public bot: Bot,
    private readonly options: HarnessOptions,
    private readonly ownsEmulator: boolean,
  ) {}

  static async start(options: HarnessOptions = {}, emulator?: Emulator): Promise<Harness> {
    const emu = emulator ?? (await startEmulator({ timeScale: 0.002, ...options.emulator }));
    const dir = options.storeDir ?? mkdtempSync(join(tmpdir(), "media-bot-"));
    const { stores, client, bot } = await Harness.core(emu, dir, options);
    const harness = new Harness(emu, dir, stores, client, bot, options, !emulator);
    harness.bot.attach(harness.chat);
    await harness.bot.start();
    return harness;
  }

  private static async core(emu: Emulator, dir: string, options: HarnessOptions) {
    const logger = pino({ level: "silent" });
    const stores = await openStores(
      `sqlite://${join(dir, "bot.sqlite")}`,
      SECRETS_KEY,
      logger,
      options.retentionDays === undefined
        ? {}
        : { jobs: { retentionMs: options.retentionDays * 86_400_000 } },
    );
    const client = createMediaClient({
      baseUrl: options.mediaUrl ?? emu.url,
      timeoutMs: options.timeoutMs ?? 5_000,
      retries: { maxRetries: 2, minDelayMs: 5, maxDelayMs: 20 },
      logger,
    });
    const fallbackKey = options.fallbackKey === undefined ? "test-key" : (options.fallbackKey ?? undefined);
    const bot = createBot({
      config: {
        media: {
          url: emu.url,
          apiKey: fallbackKey,
          apiKeyTenants: options.apiKeyTenants ?? ["guild-1"],
          thumbnailsListPath: "/api/thumbnails",
        },
        ...(options.rates && { rates: options.rates }),
      },
      media: client,
      stores,
      engine: { policy: scaledPolicy(0.005) },
      logger,
      ...(options.jobLimit !== undefined && { jobLimit: options.jobLimit }),
    });
    return { stores, client, bot };
  }

  /** A crash and a new process: a new core over the same sqlite file and the same chat platform. */
  async restart(): Promise<void> {
    await this.shutdown();
    const { stores, client, bot } = await Harness.core(this.emu, this.dir, this.options);
    Object.assign(this, { stores, client, bot, running: true });
    this.bot.attach(this.chat);
    await this.bot.start();
  }

  /** Stops the core, keeping the emulator and the store file. */
  async shutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.bot.stop();
    await this.client.close();
    await this.stores.close();
  }

  async close(): Promise<void> {
    await this.shutdown();
    if (this.ownsEmulator) await this.emu.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  // ---- driving the bot -------------------------------------------------------------------------

  async command(
    command: string,
    options: Record<string, unknown> = {},
    more: { attachments?: Record<string, Attachment[]>; actor?: Actor; conversation?: ConversationRef } = {},
  ): Promise<void> {
    await this.bot.handleCommand({
      command,
      options,
      attachments: more.attachments ?? {},
      actor: more.actor ?? actor(),
      conversation: more.conversation ?? CHANNEL,
    });
  }

  /** Runs a command that starts a job; resolves with the job's message once it is posted. */
  async startJob(...args: Parameters<Harness["command"]>): Promise<MessageRef> {
    const before = this.chat.posts.length;
    await this.command(...args);
    const post = this.chat.posts.slice(before).find((p) => !p.options.ephemeral && !p.options.idempotencyKey);
    if (!post)
      throw new Error(`no job message; the bot answered: ${JSON.stringify(this.chat.posts.at(-1)?.message)}`);
    return post.ref;
  }

  /** The job's message once it shows `done` (a success or an error card), after the ready notice. */
  async finished(ref: MessageRef, timeoutMs = 8_000): Promise<Card> {
    return eventually(() => {
      const card = this.chat.card(ref);
      const id = card.footer?.replace("Job ", "");
      const noticed = id && this.chat.posts.some((p) => p.options.idempotencyKey === `${id}:ready`);
      return noticed && (card.tone === "success" || card.tone === "error") ? card : undefined;
    }, timeoutMs);
  }

  /** Waits for a card on the message that `match` accepts. */
  async shows(ref: MessageRef, match: (card: Card) => boolean, timeoutMs = 8_000): Promise<Card> {
    return eventually(() => {
      const message = this.chat.current(ref);
      return message && isCard(message) && match(message) ? message : undefined;
    }, timeoutMs);
  }

  /**
   * Opens the follow-up form of the control `action` (with `value`) and submits it with `fields`,
   * as `who`; resolves with the form that was shown.
   */
  async submit(
    ref: MessageRef,
    action: string,
    fields: Record<string, unknown>,
    options: { value?: string; who?: Actor } = {},
  ) {
    const who = options.who ?? actor();
    const control = this.chat
      .card(ref)
      .actions.find(
        (a) =>
          a.type === "button" &&
          a.action === action &&
          (options.value === undefined || a.value === options.value),
      );
    if (!control) throw new Error(`no ${action} control on the message`);
    const form = await this.bot.actionForm({
      action,
      jobId: control.jobId,
      actor: who,
      conversation: CHANNEL,
    });
    if (!form) throw new Error(`${action} asks no form`);
    await this.bot.handleAction({
      action,
      jobId: control.jobId,
      ...(options.value !== undefined && { value: options.value }),
      fields,
      actor: who,
      message: ref,
      conversation: CHANNEL,
      entry: "form",
    });
    return form;
  }

  async click(ref: MessageRef, action: string, value?: string, who: Actor = actor()): Promise<void> {
    const card = this.chat.card(ref);
    const control = card.actions.find(
      (a) => a.action === action && (value === undefined || a.value === value),
    );
    if (!control) throw new Error(`no ${action} control on the message`);
    const event: ActionEvent = {
      action,
      jobId: control.jobId,
      ...(control.value !== undefined && { value: control.value }),
      actor: who,
      message: ref,
      conversation: { ...CHANNEL, data: { ...CHANNEL.data, clicked: ref.messageId } },
    };
    await this.bot.handleAction(event);
  }

  /** The answer only the actor saw, as a card. */
  lastEphemeral(): Card {
    const post = this.chat.ephemerals().at(-1);
    if (!post || !isCard(post.message)) throw new Error("no ephemeral card was posted");
    return post.message;
  }

  /** Creation calls the service received (and, with `ok`, accepted). */
  creations(path: string | RegExp, ok = false) {
    return this.emu.callsTo("POST", path).filter((call) => !ok || call.status === 200);
  }
}

export const text = (card: Card) =>
  [card.title, ...card.lines.map(plainText), ...card.fields.map((f) => `${f.name}: ${f.value}`)].join("\n");

/**
 * One harness for the tests of a file (starting one per test would cost seconds), handed to
 * `use` once started; the emulator's records and the chat are cleared before each test.
 */
export function harnessPerFile(use: (harness: Harness) => void): void {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await Harness.start();
    use(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(() => {
    harness?.emu.reset();
    harness?.chat.clear();
  });
}
