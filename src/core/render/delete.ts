import { type Card, card } from "../base/cards.js";
import { controlButton } from "./controls.js";
import type { JobView } from "./job.js";
import { clip } from "./text.js";

/**
 * The cards of Delete on a finished result: the question asked before a result others see is
 * deleted, what takes the result's place where the platform keeps the message, and the answer
 * to the person who deleted it. The job itself stays in the jobs list, marked deleted.
 */

/** The action of Delete (actions/delete.ts); the settings panel leaves its button out. */
export const DELETE_RESULT = "delete_result";

/** How many finished jobs of a jobs list's page get a Delete button (the others: on their messages). */
export const DELETES_LISTED = 4;

const footer = (view: JobView) => `Job ${view.id}`;

/** Asked first when others see the result: deleting takes it from them too, and cannot be undone. */
export function confirmDeleteCard(view: JobView): Card {
  return card(`Delete ${view.title}?`, "warning", {
    lines: [
      "Its message is removed for everyone who can see it, and cannot be brought back. The job stays in your jobs list, marked deleted.",
    ],
    actions: [controlButton("delete_result", view.id, "Delete it", { style: "danger", value: "sure" })],
    footer: footer(view),
  });
}

/** What the result's message shows where the platform lets the bot edit it but not delete it. */
export function deletedCard(view: JobView): Card {
  return card(view.title, "info", { lines: ["This result was deleted."], footer: footer(view) });
}

/** The answer to whoever deleted it: where the result went, and that the job is still listed. */
export function deletedNotice(view: JobView, how: "removed" | "emptied"): Card {
  return card("Deleted", "info", {
    lines: [
      how === "removed"
        ? `${view.title}: its message is deleted.`
        : `${view.title}: the platform keeps its message, so the result was taken out of it.`,
      "The job stays in your jobs list, marked deleted.",
    ],
    footer: footer(view),
  });
}

/** The Delete buttons of a jobs list's finished jobs, each named for its job; each asks first. */
export function deleteButtons(jobs: readonly { id: string; title: string }[]) {
  return jobs
    .slice(0, DELETES_LISTED)
    .map((job) =>
      controlButton("delete_result", job.id, clip(`Delete: ${job.title}`, 75), { style: "danger" }),
    );
}
