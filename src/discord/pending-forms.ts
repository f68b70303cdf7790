import { randomBytes } from "node:crypto";
import type { AnyCommand } from "../core/commands/define.js";
import type { Attachment } from "../core/ports.js";
import type { MessageImage } from "./message-images.js";

/** A command waiting for its modal: what the command line already gave. */
export interface PendingForm {
  command: AnyCommand;
  options: Record<string, unknown>;
  attachments: Record<string, Attachment[]>;
  /** The user the modal was shown to. */
  userId: string;
  /** A message command's: the image of the message it was used on, for the file option `option`. */
  image?: { option: string; source: MessageImage };
}

/** Long enough to fill in a form without hurry; the attachments' CDN links outlive it. */
export const FORM_TTL_MS = 15 * 60_000;
/**
 * Bounds on what waits in memory: a person rarely has more than one form open, and the whole bot
 * a few hundred; past these the oldest form is forgotten (its submission asks to run the command again).
 */
export const MAX_FORMS_PER_USER = 5;
export const MAX_FORMS = 1_000;

/**
 * Commands between their modal and its submission. Kept in memory: a modal's custom_id holds
 * 100 characters, too few for a name and attachment links, and a restart in between is answered
 * with "run the command again".
 */
export class PendingForms {
  private readonly forms = new Map<string, PendingForm & { at: number }>();

  constructor(private readonly clock: { now(): number } = Date) {}

  put(form: PendingForm): string {
    const now = this.clock.now();
    for (const [key, entry] of this.forms) if (now - entry.at > FORM_TTL_MS) this.forms.delete(key);
    // A Map iterates in insertion order: the first entries found are the oldest.
    const mine = [...this.forms].filter(([, entry]) => entry.userId === form.userId);
    for (const [key] of mine.slice(0, Math.max(0, mine.length - MAX_FORMS_PER_USER + 1)))
      this.forms.delete(key);
    for (const key of [...this.forms.keys()].slice(0, Math.max(0, this.forms.size - MAX_FORMS + 1))) {
      this.forms.delete(key);
    }
    const key = randomBytes(9).toString("base64url");
    this.forms.set(key, { ...form, at: now });
    return key;
  }

  /** The form, once: a second submission of the same modal finds nothing. */
  take(key: string, userId: string): PendingForm | undefined {
    const entry = this.forms.get(key);
    if (!entry || entry.userId !== userId || this.clock.now() - entry.at > FORM_TTL_MS) return undefined;
    this.forms.delete(key);
    return entry;
  }
}
