import { randomBytes, randomUUID } from "node:crypto";
import type Keyv from "keyv";
import { z } from "zod";
import type { Attachment } from "../core/base/ports.js";
import { commandByName } from "../core/commands/catalogue.js";
import type { AnyCommand } from "../core/commands/define.js";
import type { Stores } from "../store/index.js";
import { type DiscordFile, userAttachment } from "./files.js";
import type { MessageImage } from "./message-images.js";

/** A command waiting for its modal: what the command line already gave. */
export interface PendingForm {
  command: AnyCommand;
  options: Record<string, unknown>;
  /** The attached files as Discord described them (their CDN links), kept until the submission. */
  files: Record<string, DiscordFile[]>;
  /** The user the modal was shown to. */
  userId: string;
  /** A message command's: the image of the message it was used on, for the file option `option`. */
  image?: FormImage;
}

interface FormImage {
  option: string;
  source: MessageImage;
}

/** What a submission gets back: the command, with its files ready to open. */
export interface SubmittedForm {
  command: AnyCommand;
  options: Record<string, unknown>;
  attachments: Record<string, Attachment[]>;
  image?: FormImage;
}

/** Long enough to fill in a form without hurry; the attachments' CDN links outlive it. */
export const FORM_TTL_MS = 15 * 60_000;
/**
 * Bounds on what waits in the store: a person rarely has more than one form open, and the whole
 * bot a few hundred; past these the oldest form is forgotten (its submission asks to run the
 * command again).
 */
export const MAX_FORMS_PER_USER = 5;
export const MAX_FORMS = 1_000;

const ALL = "discord-forms";
const byUser = (userId: string) => `discord-forms:${userId}`;
/** Entries of the overall index name their user too, so that trimming it can trim the user's. */
const entryOf = (userId: string, key: string) => `${userId}/${key}`;

const StoredFile = z.object({
  name: z.string(),
  contentType: z.string().nullable(),
  size: z.number(),
  url: z.string(),
});

const Stored = z.object({
  command: z.string(),
  options: z.record(z.string(), z.unknown()),
  files: z.record(z.string(), z.array(StoredFile)),
  userId: z.string(),
  image: z
    .object({
      option: z.string(),
      source: z.object({ file: StoredFile.partial({ size: true }), jobId: z.string().optional() }),
    })
    .optional(),
  at: z.number(),
});

/** The forms' own keyv namespace, the claims and the indexes of the bot's store. */
export type PendingFormsStore = Pick<Stores, "keyv" | "claims" | "indexes">;

/**
 * Commands between their modal and its submission, in the bot's store: the submission may reach
 * another replica than the command (HTTP interactions behind a load balancer), or this one after
 * a restart. A modal's custom_id holds 100 characters, too few for a name and attachment links,
 * so it carries only the key.
 */
export class PendingForms {
  private readonly keyv: Keyv<unknown>;
  /** The indexes' order: forms put within one millisecond still trim oldest first. */
  private lastAt = 0;

  constructor(
    private readonly store: PendingFormsStore,
    private readonly clock: { now(): number } = Date,
  ) {
    this.keyv = store.keyv("discord-forms");
  }

  async put(form: PendingForm): Promise<string> {
    const { keyv } = this;
    const { indexes } = this.store;
    const now = this.clock.now();
    const key = randomBytes(9).toString("base64url");
    const stored: z.infer<typeof Stored> = {
      command: form.command.name,
      options: form.options,
      files: form.files,
      userId: form.userId,
      ...(form.image && { image: form.image }),
      at: now,
    };
    await keyv.set(key, stored, FORM_TTL_MS);
    const at = Math.max(now, this.lastAt + 1);
    this.lastAt = at;
    await indexes.add(byUser(form.userId), { id: key, at });
    await indexes.add(ALL, { id: entryOf(form.userId, key), at });
    const expired = now - FORM_TTL_MS;
    const mine = await indexes.trim(byUser(form.userId), MAX_FORMS_PER_USER, expired);
    await this.drop(
      mine.map((k) => entryOf(form.userId, k)),
      "overall",
    );
    await this.drop(await indexes.trim(ALL, MAX_FORMS, expired), "user");
    return key;
  }

  /**
   * The form, once: a second submission of the same modal, on this replica or another, finds
   * nothing (the store's atomic claim decides which submission is the first).
   */
  async take(key: string, userId: string): Promise<SubmittedForm | undefined> {
    const { keyv } = this;
    const { claims, indexes } = this.store;
    const parsed = Stored.safeParse(await keyv.get(key));
    if (!parsed.success) return undefined;
    const form = parsed.data;
    const command = commandByName(form.command);
    if (form.userId !== userId || this.clock.now() - form.at > FORM_TTL_MS || !command) return undefined;
    if (!(await claims.acquire(`discord-form:${key}`, randomUUID(), FORM_TTL_MS))) return undefined;
    await keyv.delete(key);
    await indexes.remove(byUser(userId), [key]);
    await indexes.remove(ALL, [entryOf(userId, key)]);
    const attachments = Object.fromEntries(
      Object.entries(form.files).map(([name, files]) => [name, files.map(userAttachment)]),
    );
    return { command, options: form.options, attachments, ...(form.image && { image: form.image }) };
  }

  /** Deletes the forms `entries` name, which left one index, and their entries in the other. */
  private async drop(entries: string[], other: "overall" | "user"): Promise<void> {
    for (const entry of entries) {
      const [userId = "", key = ""] = entry.split("/");
      await this.keyv.delete(key);
      await (other === "overall"
        ? this.store.indexes.remove(ALL, [entry])
        : this.store.indexes.remove(byUser(userId), [key]));
    }
  }
}
