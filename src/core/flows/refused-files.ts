import { type Card, type CardMedia, isCard } from "../base/cards.js";
import { FileRefusedError, type Said } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import type { ChatAdapter, Message, StepOutcome } from "../base/ports.js";
import { translatorFor } from "../i18n/translator.js";

/**
 * A file the platform refuses for good (`FileRefusedError`: over what the place accepts from the
 * bot, uploads turned off, a file type not allowed) becomes its link, in the same message sent
 * once more, with the platform's reason. One rule on top of the adapter, so that every path that
 * sends files keeps it: a job's result, a list's Show, a usage chart, a workflow step's outputs.
 */

/**
 * `card` without its files: their links instead, and `reason` (the platform's words, said in the
 * card's reader's language) with what to do.
 */
export function withoutFiles(card: Card, reason: Said): Card {
  const refused = card.media.filter((m) => m.file);
  if (refused.length === 0) return card;
  const t = translatorFor(card.locale);
  const linked = new Set(card.links.map((l) => l.url));
  const download = (m: CardMedia) => t.text("file.refused.download", { what: m.kind, name: m.name ?? "" });
  const links = refused.flatMap((m) =>
    m.url && !linked.has(m.url) ? [{ label: download(m), url: m.url }] : [],
  );
  const reachable = refused.every((m) => m.url);
  // A result of the service stays in its account; a document or chart the bot made exists nowhere else.
  const saved = refused.every((m) => m.kind !== "file" && !m.drawn);
  const instead = t.text("file.refused.instead", { how: reachable ? "link" : saved ? "saved" : "none" });
  return {
    ...card,
    lines: [
      ...card.lines,
      t.text("refusal.sentences", {
        first: typeof reason === "string" ? reason.replace(/\s+$/, "") : reason,
        second: instead,
      }),
    ],
    links: [...card.links, ...links],
    // What has a link still shows from it (an image in the card); what has none is left out.
    media: card.media.flatMap(({ file, ...media }) => (file && !media.url ? [] : [media])),
  };
}

export function linkingRefusedFiles(adapter: ChatAdapter, logger: Logger): ChatAdapter {
  async function once<T>(message: Message, send: (message: Message) => Promise<T>): Promise<T> {
    try {
      return await send(message);
    } catch (error) {
      if (!(error instanceof FileRefusedError) || !isCard(message)) throw error;
      logger.info(
        { err: error, platform: adapter.platform },
        "file refused by the platform: its link instead",
      );
      return send(withoutFiles(message, error.said));
    }
  }
  const { completeStep } = adapter;
  return {
    ...passedOn(adapter),
    platform: adapter.platform,
    post: (target, message, options) => once(message, (m) => adapter.post(target, m, options)),
    edit: (ref, message) => once(message, (m) => adapter.edit(ref, m)),
    replace: (target, message) => once(message, (m) => adapter.replace(target, m)),
    ...(completeStep && {
      async completeStep(target, outcome: StepOutcome) {
        try {
          await completeStep.call(adapter, target, outcome);
        } catch (error) {
          if (!(error instanceof FileRefusedError) || !outcome.ok || !outcome.file) throw error;
          // The step's outputs keep the link; the workflow goes on without the file.
          const { file: _refused, ...linked } = outcome;
          await completeStep.call(adapter, target, linked);
        }
      },
    }),
  };
}

/** The members that send no file. Listed by type: a capability added to the port must be named here. */
type PassedOn = Exclude<keyof ChatAdapter, "platform" | "post" | "edit" | "replace" | "completeStep">;
const PASSED_ON: { readonly [K in PassedOn]: true } = {
  uploadLimit: true,
  remove: true,
  channel: true,
  messageUrl: true,
  publishHome: true,
  names: true,
  rolesOf: true,
};

/** The adapter's own members that send no file, bound to it, the optional ones where it has them. */
function passedOn(adapter: ChatAdapter): Pick<ChatAdapter, PassedOn> {
  const members: Partial<Record<PassedOn, unknown>> = {};
  for (const key of Object.keys(PASSED_ON) as PassedOn[]) {
    const member = adapter[key];
    if (typeof member === "function") members[key] = member.bind(adapter);
  }
  return members as Pick<ChatAdapter, PassedOn>;
}
