import { type Card, card } from "../base/cards.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import { controlButton } from "./controls.js";
import type { JobView } from "./job.js";
import { clip } from "./text.js";

/**
 * The cards of Delete on a finished result: the question asked before a result others see is
 * deleted, what takes the result's place where the platform keeps the message, and the answer
 * to the person who deleted it. The job itself stays in the jobs list, marked deleted. The
 * question and the answer speak the clicker's language (`reader`: an admin's may not be the
 * requester's); the emptied message its requester's (the view's), like the job's other cards.
 */

/** The action of Delete (actions/delete.ts); the settings panel leaves its button out. */
export const DELETE_RESULT = "delete_result";

/** How many finished jobs of a jobs list's page get a Delete button (the others: on their messages). */
export const DELETES_LISTED = 4;

/** The most a list's Delete button says: Slack's button text, the shorter of the two platforms'. */
const NAMED_MAX = 75;

const footer = (view: JobView, t: Translator) => t.text("job.footer", { id: view.id });

/** A card in `locale`'s language, which the adapters' additions to it speak too. */
const localeOf = (locale: string | undefined) => (locale === undefined ? {} : { locale });

/** Asked first when others see the result: deleting takes it from them too, and cannot be undone. */
export function confirmDeleteCard(view: JobView, reader?: string): Card {
  const t = translatorFor(reader);
  return card(t.text("delete.question_title", { title: view.title }), "warning", {
    ...localeOf(reader),
    lines: [t.text("delete.question")],
    actions: [
      controlButton("delete_result", view.id, t.text("delete.confirm"), { style: "danger", value: "sure" }),
    ],
    footer: footer(view, t),
  });
}

/** What the result's message shows where the platform lets the bot edit it but not delete it. */
export function deletedCard(view: JobView): Card {
  const t = translatorFor(view.locale);
  return card(view.title, "info", {
    ...localeOf(view.locale),
    lines: [t.text("delete.emptied")],
    footer: footer(view, t),
  });
}

/** The answer to whoever deleted it: where the result went, and that the job is still listed. */
export function deletedNotice(view: JobView, how: "removed" | "emptied", reader?: string): Card {
  const t = translatorFor(reader);
  return card(t.text("delete.done_title"), "info", {
    ...localeOf(reader),
    lines: [
      t.text(how === "removed" ? "delete.removed" : "delete.emptied_notice", { title: view.title }),
      t.text("delete.stays"),
    ],
    footer: footer(view, t),
  });
}

/** The Delete buttons of a jobs list's finished jobs, each named for its job; each asks first. */
export function deleteButtons(jobs: readonly { id: string; title: string }[], t: Translator = english()) {
  return jobs.slice(0, DELETES_LISTED).map((job) =>
    controlButton("delete_result", job.id, clip(t.text("delete.named", { title: job.title }), NAMED_MAX), {
      style: "danger",
    }),
  );
}
