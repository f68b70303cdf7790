import type { JobRecord } from "../../store/jobs.js";
import type { JobState, NormalizedStatus } from "../api/job-status.js";
import { type Card, type CardAction, type CardMedia, card } from "../base/cards.js";
import { controlButton } from "./controls.js";
import { duration, inSentence, megabytes, plural } from "./text.js";

/**
 * The cards of one job's message, from "queued" to its result. Every card of a job carries the
 * same title and footer, so the message reads as one thing that changes.
 */

export interface JobView {
  /** Our job id: the footer names it, so people can quote it when asking for help. */
  id: string;
  title: string;
  /** Said under every card of the job (why it shows in the channel though meant private). */
  note?: string;
}

/** The view of a job record: its id, and the title and note its inputs keep. */
export function viewOf(job: Pick<JobRecord, "id" | "inputs">): JobView {
  const inputs = job.inputs as { title?: unknown; note?: unknown } | null;
  return {
    id: job.id,
    title: typeof inputs?.title === "string" ? inputs.title : "Media job",
    ...(typeof inputs?.note === "string" && { note: inputs.note }),
  };
}

/** Where a job stands, in the words of the lists that show it (jobs, the settings panel). */
export const STATE_WORDS: Record<JobState, string> = {
  queued: "Queued",
  working: "Working",
  retrying: "Retrying at the service",
  needs_choice: "Waiting for your choice",
  done: "Done",
  failed: "Failed",
};

/** Before the engine has a record there is no id to show yet. */
const footer = (view: JobView) =>
  [view.id && `Job ${view.id}`, view.note].filter(Boolean).join(" · ") || undefined;

export function queuedCard(view: JobView): Card {
  return card(view.title, "progress", {
    lines: ["Queued at the media service. This message updates as the job moves on."],
    progress: { percent: null, label: "Queued" },
    footer: footer(view),
  });
}

/**
 * How long the job has run, and once the service reports progress, about how long is left: the
 * time so far scaled by the share still to do (the service gives no estimate of its own).
 */
export function timing(elapsedMs: number, percent: number | null): string {
  const ran = `Running for ${duration(elapsedMs)}`;
  if (percent === null || percent <= 0 || percent >= 100) return `${ran}.`;
  return `${ran}, about ${duration((elapsedMs * (100 - percent)) / percent)} left.`;
}

/** `elapsedMs`: how long the job has run, shown with the progress. */
export function progressCard(view: JobView, status: NormalizedStatus, elapsedMs?: number): Card {
  const ran = elapsedMs === undefined ? [] : [timing(elapsedMs, status.progress)];
  if (status.state === "retrying") {
    return card(view.title, "warning", {
      lines: [
        "The media service hit a temporary problem and is retrying on its own. Nothing to do: this message keeps updating.",
      ],
      progress: { percent: status.progress, label: "Retrying" },
      footer: footer(view),
    });
  }
  if (status.state === "working") {
    return card(view.title, "progress", {
      lines: [...(status.message ? [status.message] : []), ...ran],
      progress: { percent: status.progress, label: "Working" },
      footer: footer(view),
    });
  }
  return queuedCard(view);
}

export function variantsCard(view: JobView, previewUrls: readonly [string, string]): Card {
  return card(view.title, "info", {
    lines: [
      "Two variants are ready. Keep the one you like, or both. Only the requester or an admin can choose.",
    ],
    media: previewUrls.map((url, i) => ({
      kind: "image",
      name: `Variant ${i + 1}`,
      url,
      alt: `Variant ${i + 1}`,
    })),
    actions: [
      controlButton("confirm", view.id, "Keep 1", { style: "primary", value: "1" }),
      controlButton("confirm", view.id, "Keep 2", { style: "primary", value: "2" }),
      controlButton("confirm_both", view.id, "Keep both", { style: "success" }),
    ],
    footer: footer(view),
  });
}

/** Shown while a choice is being confirmed, so a second click has nothing to press. */
export function confirmingCard(view: JobView, choice: string): Card {
  return card(view.title, "progress", {
    lines: [`Keeping ${choice}…`],
    progress: { percent: null, label: "Creating the avatar" },
    footer: footer(view),
  });
}

export function photoAvatarCard(view: JobView, avatarIds: readonly string[]): Card {
  return card(view.title, "success", {
    lines: [
      avatarIds.length === 1
        ? "Your photo avatar is ready. Use its id as the avatar of a video."
        : `Your ${plural(avatarIds.length, "photo avatar")} are ready. Use an id as the avatar of a video.`,
    ],
    fields: avatarIds.map((id, i) => ({
      name: avatarIds.length === 1 ? "Avatar id" : `Avatar ${i + 1} id`,
      value: id,
      inline: true,
    })),
    footer: footer(view),
  });
}

/** A finished image or video: attached when `file` is present, `oversize` when it was too big. */
export interface ResultMediaView extends CardMedia {
  oversize?: { bytes: number; limit: number };
}

export function resultCard(
  view: JobView,
  result: ResultMediaView,
  extra: { lines?: string[]; fields?: Card["fields"]; recipe?: Card["recipe"]; actions?: CardAction[] } = {},
): Card {
  const { oversize, ...media } = result;
  const what = result.kind === "video" ? "video" : "image";
  const lines = [...(extra.lines ?? [])];
  if (oversize) {
    lines.push(
      media.url
        ? `The ${what} is ${megabytes(oversize.bytes)}, more than the ${megabytes(oversize.limit)} this conversation accepts, so it is not attached: use the download link (valid for about a day).`
        : `The ${what} is ${megabytes(oversize.bytes)}, more than the ${megabytes(oversize.limit)} this conversation accepts, so it cannot be posted here. It is saved in the media service account.`,
    );
  }
  return card(view.title, "success", {
    lines,
    fields: extra.fields ?? [],
    ...(extra.recipe && extra.recipe.length > 0 && { recipe: extra.recipe }),
    links: media.url ? [{ label: `Download the ${what}`, url: media.url }] : [],
    media: oversize ? (media.url ? [media] : []) : [media],
    actions: extra.actions ?? [],
    footer: footer(view),
  });
}

/**
 * A job that ended without a result: `serviceReason` is the service's own words, `explanation`
 * the bot's full sentence (it stopped waiting for a stuck job, it could not read the status).
 */
export function failedJobCard(view: JobView, why: { serviceReason?: string; explanation?: string }): Card {
  const lines = why.explanation
    ? [why.explanation]
    : [
        why.serviceReason
          ? `The media service could not finish this job: ${why.serviceReason.replace(/[.!\s]+$/, "")}.`
          : "The media service could not finish this job.",
        "Try again, perhaps with a different prompt or file. If it keeps failing, check the account with the usage command.",
      ];
  return card(view.title, "error", { lines, footer: footer(view) });
}

/** A job whose result the bot could not fetch or post: say so instead of leaving "working" forever. */
export function undeliverableCard(view: JobView, reason: string): Card {
  return card(view.title, "error", {
    lines: ["The job finished at the media service, but the bot could not fetch the result.", reason],
    footer: footer(view),
  });
}

/** The service took the job but the bot could not record it (store down): the message will not move. */
export function untrackedCard(view: JobView): Card {
  return card(view.title, "error", {
    lines: [
      "The media service accepted this job, but the bot could not keep track of it, so this message will not update.",
      "The result will show up in the service's lists (video list, mockup assets, thumbnail list) when it is ready.",
    ],
  });
}

/**
 * Told privately when a job runs but its message could not be posted: why (`reason`, when the
 * platform said), what arrives, and what not to do.
 */
export function unpostedCard(view: JobView, reason?: string): Card {
  return card(view.title, "warning", {
    lines: [
      "The media service accepted this job, but the bot could not post its message in this channel, so its progress will not show here.",
      ...(reason ? [reason] : []),
      "The result is posted here when it is ready, if the bot can post here by then. The jobs command shows how the job is going.",
      "Running the command again would start, and pay for, a second job.",
    ],
    footer: footer(view),
  });
}

/**
 * What a job shows in its person's DM because the conversation it was asked in refused the bot
 * for good while it ran (`reason`: the platform's refusal, in words for them).
 */
export function divertedCard(shown: Card, reason: string): Card {
  return {
    ...shown,
    lines: [
      `The bot could not show this where you asked for it. ${reason.trim()} So it comes here, to your DM with the bot.`,
      ...shown.lines,
    ],
  };
}

/** The short post that tells the requester a job ended (the job's own message is an edit, which pings nobody). */
export function readyNotice(view: JobView, failed: boolean): { text: string } {
  const title = inSentence(view.title);
  return { text: failed ? `${title}: the job failed (details above).` : `${title} is ready.` };
}
