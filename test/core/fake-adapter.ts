import type { Readable } from "node:stream";
import { type Card, isCard } from "../../src/core/base/cards.js";
import {
  DeleteRefusedError,
  FileRefusedError,
  MessageGoneError,
  UndeliverableError,
} from "../../src/core/base/errors.js";
import type {
  ChatAdapter,
  ConversationRef,
  Message,
  MessageRef,
  OutgoingFile,
  Platform,
  PostOptions,
} from "../../src/core/base/ports.js";

/** A file as the fake platform received it: every byte read from the OutgoingFile's stream. */
export interface ReceivedFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface PostRecord {
  target: ConversationRef;
  message: Message;
  options: PostOptions;
  ref: MessageRef;
  files: ReceivedFile[];
}

export interface EditRecord {
  ref: MessageRef;
  message: Message;
  files: ReceivedFile[];
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** An MP4 starts with a box whose type is "ftyp" (bytes 4-7). */
export const isMp4 = (bytes: Buffer) => bytes.subarray(4, 8).toString("latin1") === "ftyp";
export const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(PNG_SIGNATURE);

/**
 * An in-memory chat platform: keeps every message's current state, records every post and edit,
 * and uploads files the way a real adapter does (reading the stream to its end, refusing files
 * over the upload limit), so tests check what people would see and receive.
 */
export class FakeAdapter implements ChatAdapter {
  readonly posts: PostRecord[] = [];
  readonly edits: EditRecord[] = [];
  private readonly state = new Map<string, Message>();
  private readonly byIdempotencyKey = new Map<string, MessageRef>();
  private counter = 0;
  limit = 10 * 1024 * 1024;
  /**
   * What the platform really takes, when it is less than `limit` says (Discord past an
   * interaction's 15 minutes: the bot's own limit, not the requester's): a bigger file is refused.
   */
  accepts: number | undefined;

  constructor(readonly platform: Platform = "discord") {}

  uploadLimit(_target: ConversationRef): number {
    return this.limit;
  }

  channel(_tenantId: string, channelId: string): ConversationRef {
    return { platform: this.platform, channelId };
  }

  messageUrl(ref: MessageRef, tenantId: string): string {
    return `https://chat.invalid/${tenantId}/${ref.channelId}/${ref.messageId}`;
  }

  /**
   * Where the bot is refused for good from now on, with the platform's reason: a channel by its
   * id, or "dm" for every post to a person's DM (a conversation with `privateFrom`).
   */
  readonly refusals = new Map<string, string>();
  /** Every request refused for good, as "post <where>" or "edit <channel>". */
  readonly refused: string[] = [];

  private refuseIn(what: "post" | "edit", where: string): void {
    const reason = this.refusals.get(where);
    if (reason === undefined) return;
    this.refused.push(`${what} ${where}`);
    throw new UndeliverableError(reason);
  }

  /** The next `times` calls of `method` fail, as a platform outage would. */
  failNext(method: "post" | "edit", times = 1): void {
    this.failures[method] += times;
  }

  private failures = { post: 0, edit: 0 };

  private outage(method: "post" | "edit"): void {
    if (this.failures[method] > 0) {
      this.failures[method] -= 1;
      throw new Error(`503: the platform is down (${method})`);
    }
  }

  async post(target: ConversationRef, message: Message, options: PostOptions = {}): Promise<MessageRef> {
    this.outage("post");
    this.refuseIn("post", target.privateFrom === undefined ? target.channelId : "dm");
    const keyed = options.idempotencyKey ?? options.findKey;
    if (keyed) {
      const earlier = this.byIdempotencyKey.get(keyed);
      if (earlier) return earlier;
    }
    const files = await this.receive(message);
    this.counter += 1;
    const ref: MessageRef = {
      platform: this.platform,
      channelId: target.channelId,
      messageId: `m${this.counter}`,
      data: { posted: this.counter },
    };
    if (keyed) this.byIdempotencyKey.set(keyed, ref);
    this.state.set(ref.messageId, message);
    this.posts.push({ target, message, options, ref, files });
    return ref;
  }

  async edit(ref: MessageRef, message: Message): Promise<void> {
    this.outage("edit");
    this.refuseIn("edit", ref.channelId);
    if (!this.state.has(ref.messageId))
      throw new MessageGoneError({ message: `edit of unknown message ${ref.messageId}` });
    const files = await this.receive(message);
    this.state.set(ref.messageId, message);
    this.edits.push({ ref, message, files });
  }

  /** Messages the bot may not delete, only edit (as a platform keeps a message not the bot's own). */
  readonly undeletable = new Set<string>();
  /** Every message the bot deleted, in order (one already gone counts as deleted, again). */
  readonly removed: MessageRef[] = [];

  async remove(ref: MessageRef, _click?: ConversationRef): Promise<void> {
    if (this.undeletable.has(ref.messageId))
      throw new DeleteRefusedError("The platform does not let the bot delete this message.");
    this.state.delete(ref.messageId);
    this.removed.push(ref);
  }

  /** The clicked message (the conversation's `clicked` ref, as the harness sets it) becomes `message`. */
  async replace(target: ConversationRef, message: Message): Promise<void> {
    const clicked = target.data?.clicked;
    if (typeof clicked !== "string" || !this.state.has(clicked))
      throw new MessageGoneError({ message: `replace of unknown message ${String(clicked)}` });
    const ref = { platform: this.platform, channelId: target.channelId, messageId: clicked };
    await this.edit(ref, message);
  }

  private async receive(message: Message): Promise<ReceivedFile[]> {
    if (!isCard(message)) return [];
    const received: ReceivedFile[] = [];
    for (const media of message.media) {
      if (media.file) received.push(await this.upload(media.file));
    }
    return received;
  }

  private async upload(file: OutgoingFile): Promise<ReceivedFile> {
    const accepted = this.accepts ?? this.limit;
    const refuse = () =>
      new FileRefusedError(`The platform takes files of up to ${accepted} bytes from the bot here.`);
    if (file.size !== undefined && file.size > accepted) throw refuse();
    const bytes = await readAll(await file.open());
    if (bytes.length > accepted) throw refuse();
    return { name: file.name, contentType: file.contentType, bytes };
  }

  // ---- what tests look at ----------------------------------------------------------------------

  /** Forgets what was recorded (between tests); the messages themselves stay, as on a real platform. */
  clear(): void {
    this.posts.length = 0;
    this.edits.length = 0;
    this.refused.length = 0;
    this.refusals.clear();
    this.accepts = undefined;
  }

  /** Someone deletes a message of the bot's. */
  delete(ref: MessageRef): void {
    this.state.delete(ref.messageId);
  }

  /** The message as people see it now. */
  current(ref: MessageRef | string): Message | undefined {
    return this.state.get(typeof ref === "string" ? ref : ref.messageId);
  }

  card(ref: MessageRef | string): Card {
    const message = this.current(ref);
    if (!message || !isCard(message)) throw new Error(`message ${JSON.stringify(ref)} is not a card`);
    return message;
  }

  /** Every file that reached the platform, from posts and edits. */
  files(): ReceivedFile[] {
    return [...this.posts.flatMap((p) => p.files), ...this.edits.flatMap((e) => e.files)];
  }

  ephemerals(): PostRecord[] {
    return this.posts.filter((p) => p.options.ephemeral);
  }

  publicPosts(): PostRecord[] {
    return this.posts.filter((p) => !p.options.ephemeral);
  }

  lastPost(): PostRecord {
    const last = this.posts.at(-1);
    if (!last) throw new Error("nothing was posted");
    return last;
  }

  /** The last post as a card (the answer to the last command). */
  lastCard(): Card {
    const { message } = this.lastPost();
    if (!isCard(message)) throw new Error(`the last post is text: ${message.text}`);
    return message;
  }

  /** Every version a message went through, first post then edits. */
  history(ref: MessageRef | string): Message[] {
    const id = typeof ref === "string" ? ref : ref.messageId;
    return [
      ...this.posts.filter((p) => p.ref.messageId === id).map((p) => p.message),
      ...this.edits.filter((e) => e.ref.messageId === id).map((e) => e.message),
    ];
  }
}

/** Polls `check` until it returns a value (not undefined/false) or the time is up. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw lastError instanceof Error ? lastError : new Error("condition not met in time");
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
