import { type Card, card } from "../base/cards.js";
import { buttonOf } from "./controls.js";
import type { JobView } from "./job.js";
import { clip, plural } from "./text.js";

/**
 * The cards of a job waiting its turn in its person's queue: where it stands (edited as it moves
 * up) with its Cancel button, and how it ended when it never started. Nothing is charged for a
 * job until it starts, and each card says so.
 */

/** The action of a queued job's Cancel button; the flows route it before the catalogue's. */
export const CANCEL_QUEUED = "cancel_queued";

const footer = (view: JobView) => [`Job ${view.id}`, view.note].filter(Boolean).join(" · ");

export function waitingCard(view: JobView, ahead: number): Card {
  return card(view.title, "progress", {
    lines: [
      `Queued: ${ahead} ahead of you.`,
      "It starts, with its own request to the media service, when one of your jobs ends. Nothing is charged until then.",
    ],
    progress: { percent: null, label: ahead === 0 ? "Next to start" : `${plural(ahead, "job")} ahead` },
    actions: [buttonOf(CANCEL_QUEUED, view.id, "Cancel", { style: "danger" })],
    footer: footer(view),
  });
}

/** How many waiting jobs a list offers a Cancel button for (the others: on their own messages). */
export const CANCELS_LISTED = 4;

/** "Image: a fox · 2 ahead": a waiting job in the jobs list and on the Home. */
export const waitingLine = (job: { title: string; ahead: number }) =>
  `${job.title} · ${job.ahead === 0 ? "next to start" : `${plural(job.ahead, "job")} ahead`}`;

/** The Cancel buttons of the first waiting jobs, each named for its job. */
export function cancelButtons(waiting: readonly { id: string; title: string }[]) {
  return waiting
    .slice(0, CANCELS_LISTED)
    .map((job) => buttonOf(CANCEL_QUEUED, job.id, clip(`Cancel: ${job.title}`, 75), { style: "danger" }));
}

export function cancelledCard(view: JobView): Card {
  return card(view.title, "info", {
    lines: ["Cancelled before it started: nothing was charged."],
    footer: footer(view),
  });
}

/** Its start was refused when its turn came (budget used up, access removed, the service down). */
export function notStartedCard(view: JobView, reason: string): Card {
  return card(view.title, "error", {
    lines: [`Not started when its turn came: ${reason.replace(/\s+$/, "")}`, "Nothing was charged."],
    footer: footer(view),
  });
}

/** The bot stopped while it was starting the job: whether the service took it is not known here. */
export function interruptedCard(view: JobView): Card {
  return card(view.title, "warning", {
    lines: [
      "The bot restarted while this job was starting, so it may not have reached the media service. It was not started again, so that it is never paid twice.",
      "See the jobs command, and run the command again if it is not there.",
    ],
    footer: footer(view),
  });
}
