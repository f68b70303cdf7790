import { z } from "zod";
import { ActionError } from "../commands/errors.js";
import { LISTS } from "../commands/lists.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { fileOrLink } from "../media/files.js";
import { resultCard } from "../render/job.js";
import { readPageValue, readShowValue } from "../render/lists.js";
import { defineAction, OLD_CONTROL } from "./define.js";

/**
 * The controls of a list: its pages, and Show on the entries that have an image or a video. The
 * list is read again for whoever clicks, through its command, so a click can show nobody more
 * than their own command would.
 */

/** Previous and Next: the clicked list becomes the page asked for, in place (lists are private). */
export const page = defineAction({
  name: "page",
  on: "list",
  value: z
    .string()
    .refine((value) => readPageValue(value) !== undefined, OLD_CONTROL)
    .transform((value) => readPageValue(value)!),
  async run({ event, adapter, command, context, value, list }) {
    const options = {
      ...LISTS[list].options,
      page: value.page,
      ...(value.search && { search: value.search }),
    };
    const outcome = await command.run(await context(options));
    if (!("reply" in outcome)) throw new Error(`the ${command.name} list started a job`);
    await adapter.replace(event.conversation, outcome.reply);
  },
});

/** The entry's image or video, privately, to the person who clicked. */
export const show = defineAction({
  name: "show",
  on: "list",
  value: z
    .string()
    .refine((value) => readShowValue(value) !== undefined, OLD_CONTROL)
    .transform((value) => readShowValue(value)!),
  async run({ event, adapter, context, value, list }) {
    const find = LISTS[list].find;
    const locale = readerLocale(event.actor);
    const t = translatorFor(locale);
    const { media, uploadLimit } = await context({ ...LISTS[list].options, page: value.page });
    const item = find && (await find(media, value.id, value.page, t));
    if (!item) {
      throw new ActionError("action.gone", msg("refusal.action.item_gone", { id: value.id }));
    }
    const view = await fileOrLink(
      item.kind,
      item.name,
      () => media.media.download(item.source),
      item.source,
      uploadLimit,
    );
    const shown = {
      ...resultCard({ id: "", title: item.name, locale }, view),
      footer: t.text("lists.shown.footer", { id: value.id }),
    };
    await adapter.post(event.conversation, shown, { ephemeral: true });
  },
});
