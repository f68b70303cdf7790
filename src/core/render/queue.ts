import { type Card, card } from "../base/cards.js";
import { command } from "../i18n/msg.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import { buttonOf } from "./controls.js";
import type { JobView } from "./job.js";
import { clip } from "./text.js";

/**
 * The cards of a job waiting its turn in its person's queue: where it stands (edited as it moves
 * up) with its Cancel button, and how it ended when it never started. Nothing is charged for a
 * job until it starts, and each card says so. Each speaks its requester's language (the view's).
 */

/** The action of a queued job's Cancel button; the flows route it before the catalogue's. */
export const CANCEL_QUEUED = "cancel_queued";

const tOf = (view: JobView): Translator => translatorFor(view.locale);

const footer = (view: JobView) =>
  [tOf(view).text("job.footer", { id: view.id }), view.note].filter(Boolean).join(" · ");

export function waitingCard(view: JobView, ahead: number): Card {
  const t = tOf(view);
  return card(view.title, "progress", {
    ...(view.locale && { locale: view.locale }),
    lines: [t.text("queue.ahead", { ahead }), t.text("queue.starts_when")],
    progress: { percent: null, label: t.text("queue.ahead_label", { ahead }) },
    actions: [buttonOf(CANCEL_QUEUED, view.id, t.text("queue.cancel"), { style: "danger" })],
    footer: footer(view),
  });
}

/** How many waiting jobs a list offers a Cancel button for (the others: on their own messages). */
export const CANCELS_LISTED = 4;

/** "Image: a fox · 2 jobs ahead": a waiting job in the jobs list and on the Home. */
export const waitingLine = (job: { title: string; ahead: number }, t: Translator = english()) =>
  t.text("queue.waiting_line", { title: job.title, ahead: job.ahead });

/** The Cancel buttons of the first waiting jobs, each named for its job. */
export function cancelButtons(waiting: readonly { id: string; title: string }[], t: Translator = english()) {
  return waiting.slice(0, CANCELS_LISTED).map((job) =>
    buttonOf(CANCEL_QUEUED, job.id, clip(t.text("queue.cancel_named", { title: job.title }), 75), {
      style: "danger",
    }),
  );
}

export function cancelledCard(view: JobView): Card {
  return card(view.title, "info", { lines: [tOf(view).text("queue.cancelled")], footer: footer(view) });
}

/** Its start was refused when its turn came (budget used up, access removed, the service down). */
export function notStartedCard(view: JobView, reason: string): Card {
  const t = tOf(view);
  return card(view.title, "error", {
    lines: [
      t.text("queue.not_started", { reason: reason.replace(/\s+$/, "") }),
      t.text("queue.not_started_charged"),
    ],
    footer: footer(view),
  });
}

/** The bot stopped while it was starting the job: whether the service took it is not known here. */
export function interruptedCard(view: JobView): Card {
  const t = tOf(view);
  return card(view.title, "warning", {
    lines: [t.text("queue.interrupted"), t.text("queue.interrupted_see", { jobs: command("jobs") })],
    footer: footer(view),
  });
}
