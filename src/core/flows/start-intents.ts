import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import { z } from "zod";
import { conversationRef, platform } from "../../common/types.js";
import type { Indexes } from "../../store/indexes.js";
import { card } from "../base/cards.js";
import type { Logger } from "../base/log.js";
import type { Actor, ChatAdapter, ConversationRef, Platform } from "../base/ports.js";
import { readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { outsideStep } from "./steps.js";

/**
 * A start under way, written before the command's upload and creation call and removed once its
 * outcome is known here (the job tracked, or an error told). One still on record when its process
 * is gone is a start the crash cut short: the service may have created the job and taken the
 * credits without the bot ever learning its id. Nothing can be polled, and the call is never
 * repeated; the person is told where the job will show up if it was created.
 */
const Intent = z.object({
  command: z.string(),
  platform,
  userId: z.string(),
  conversation: conversationRef,
  at: z.number(),
  /** The person's language; intents recorded before it was kept are said in English. */
  locale: z.string().optional(),
});

const indexOf = (instanceId: string) => `starts:${instanceId}`;

export class StartIntents {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly indexes: Indexes,
  ) {}

  /** Records a start by `instanceId`; the function returned forgets it. */
  async open(
    instanceId: string,
    start: { command: string; actor: Actor; conversation: ConversationRef },
  ): Promise<() => Promise<void>> {
    const id = randomUUID();
    const at = Date.now();
    // The gesture's credentials stay out: the notice may come long after they lapsed.
    const { live: _live, ...conversation } = start.conversation;
    const intent: z.infer<typeof Intent> = {
      command: start.command,
      platform: start.actor.platform,
      userId: start.actor.userId,
      conversation,
      at,
      locale: readerLocale(start.actor),
    };
    await this.keyv.set(id, intent);
    await this.indexes.add(indexOf(instanceId), { id, at });
    return async () => {
      await this.indexes.remove(indexOf(instanceId), [id]);
      await this.keyv.delete(id);
    };
  }

  /**
   * Tells each person whose start `instanceId` left unfinished, once: the record goes before the
   * notice, so that a second crash never tells twice (a notice lost then is the lesser harm).
   */
  async tellLeftBehind(
    instanceId: string,
    adapter: (platform: Platform) => ChatAdapter,
    logger: Logger,
  ): Promise<void> {
    const entries = await this.indexes.list(indexOf(instanceId));
    for (const { id } of entries) {
      const parsed = Intent.safeParse(await this.keyv.get(id));
      await this.indexes.remove(indexOf(instanceId), [id]);
      await this.keyv.delete(id);
      if (!parsed.success) continue;
      const intent = parsed.data;
      // A workflow step's token is not kept with the intent: its person hears in their DM.
      const conversation = outsideStep(intent.conversation);
      logger.warn({ instanceId, command: intent.command }, "a start was cut short by a crash");
      await adapter(intent.platform)
        .post(conversation, interruptedStartCard(intent.command, intent.locale), {
          mentionUserId: intent.userId,
        })
        .catch((error: unknown) =>
          logger.warn({ err: error, command: intent.command }, "notice of a start cut short not posted"),
        );
    }
  }
}

export function interruptedStartCard(command: string, locale?: string) {
  const t = translatorFor(locale);
  return {
    ...card(t.text("job.start_interrupted.title"), "warning", {
      lines: [t.text("job.start_interrupted.line", { command: command.replace(".", " ") })],
    }),
    ...(locale && { locale }),
  };
}
