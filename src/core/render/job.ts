import type { JobRecord } from "../../store/jobs.js";
import type { JobState, NormalizedStatus } from "../api/job-status.js";
import { type Card, type CardAction, type CardMedia, card, type Tone } from "../base/cards.js";
import type { Said } from "../base/errors.js";
import { command } from "../i18n/msg.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import { controlButton } from "./controls.js";
import { inSentence } from "./text.js";

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
  /** The requester's language, which every card of the job speaks; English when absent. */
  locale?: string;
}

const tOf = (view: JobView): Translator => translatorFor(view.locale);

/** A card of the job: its title, and its requester's language for what an adapter adds to it. */
const jobCard = (view: JobView, tone: Tone, parts: Parameters<typeof card>[2] = {}): Card =>
  card(view.title, tone, { ...parts, ...(view.locale && { locale: view.locale }) });

/** The view of a job record: its id, and the title, note and language its inputs keep. */
export function viewOf(job: Pick<JobRecord, "id" | "inputs">): JobView {
  const inputs = job.inputs as { title?: unknown; note?: unknown; locale?: unknown } | null;
  const locale = typeof inputs?.locale === "string" ? inputs.locale : undefined;
  return {
    id: job.id,
    title: typeof inputs?.title === "string" ? inputs.title : translatorFor(locale).text("job.untitled"),
    ...(typeof inputs?.note === "string" && { note: inputs.note }),
    ...(locale && { locale }),
  };
}

/** Where a job stands, in the words of the lists that show it (jobs, the settings panel). */
export function stateWord(state: JobState, t: Translator = english()): string {
  return t.text(`job.state.${state}`);
}

export const STATE_WORDS = Object.fromEntries(
  (["queued", "working", "retrying", "needs_choice", "done", "failed"] as const).map((state) => [
    state,
    stateWord(state),
  ]),
) as Record<JobState, string>;

/** Before the engine has a record there is no id to show yet. */
const footer = (view: JobView) =>
  [view.id && tOf(view).text("job.footer", { id: view.id }), view.note].filter(Boolean).join(" · ") ||
  undefined;

export function queuedCard(view: JobView): Card {
  const t = tOf(view);
  return jobCard(view, "progress", {
    lines: [t.text("job.queued.line")],
    progress: { percent: null, label: t.text("job.progress.queued") },
    footer: footer(view),
  });
}

/**
 * How long the job has run, and once the service reports progress, about how long is left: the
 * time so far scaled by the share still to do (the service gives no estimate of its own).
 */
export function timing(elapsedMs: number, percent: number | null, t: Translator = english()): string {
  const ran = t.duration(elapsedMs);
  if (percent === null || percent <= 0 || percent >= 100) return t.text("job.running_for", { ran });
  return t.text("job.running_for_left", { ran, left: t.duration((elapsedMs * (100 - percent)) / percent) });
}

/** `elapsedMs`: how long the job has run, shown with the progress. */
export function progressCard(view: JobView, status: NormalizedStatus, elapsedMs?: number): Card {
  const t = tOf(view);
  const ran = elapsedMs === undefined ? [] : [timing(elapsedMs, status.progress, t)];
  if (status.state === "retrying") {
    return jobCard(view, "warning", {
      lines: [t.text("job.retrying.line")],
      progress: { percent: status.progress, label: t.text("job.progress.retrying") },
      footer: footer(view),
    });
  }
  if (status.state === "working") {
    return jobCard(view, "progress", {
      lines: [...(status.message ? [status.message] : []), ...ran],
      progress: { percent: status.progress, label: t.text("job.progress.working") },
      footer: footer(view),
    });
  }
  return queuedCard(view);
}

export function variantsCard(view: JobView, previewUrls: readonly [string, string]): Card {
  const t = tOf(view);
  return jobCard(view, "info", {
    lines: [t.text("job.variants.line")],
    media: previewUrls.map((url, i) => ({
      kind: "image",
      name: t.text("job.variants.name", { n: i + 1 }),
      url,
      alt: t.text("job.variants.name", { n: i + 1 }),
    })),
    actions: [
      controlButton("confirm", view.id, t.text("job.variants.keep", { n: 1 }), {
        style: "primary",
        value: "1",
      }),
      controlButton("confirm", view.id, t.text("job.variants.keep", { n: 2 }), {
        style: "primary",
        value: "2",
      }),
      controlButton("confirm_both", view.id, t.text("job.variants.keep_both"), { style: "success" }),
    ],
    footer: footer(view),
  });
}

/** Shown while a choice is being confirmed, so a second click has nothing to press. */
export function confirmingCard(view: JobView, choice: { both: true } | { variant: number }): Card {
  const t = tOf(view);
  const said = "both" in choice ? { both: "yes", variant: 0 } : { both: "no", variant: choice.variant };
  return jobCard(view, "progress", {
    lines: [t.text("job.confirming", said)],
    progress: { percent: null, label: t.text("job.confirming.progress") },
    footer: footer(view),
  });
}

export function photoAvatarCard(view: JobView, avatarIds: readonly string[]): Card {
  const t = tOf(view);
  return jobCard(view, "success", {
    lines: [t.text("job.photo_avatar.ready", { count: avatarIds.length })],
    fields: avatarIds.map((id, i) => ({
      name:
        avatarIds.length === 1
          ? t.text("job.photo_avatar.id")
          : t.text("job.photo_avatar.nth_id", { n: i + 1 }),
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
  const t = tOf(view);
  const { oversize, ...media } = result;
  const kind = result.kind === "video" ? "video" : "image";
  const lines = [...(extra.lines ?? [])];
  if (oversize) {
    const sizes = { kind, size: t.bytes(oversize.bytes), limit: t.bytes(oversize.limit) };
    lines.push(t.text(media.url ? "job.result.oversize_linked" : "job.result.oversize_saved", sizes));
  }
  return jobCard(view, "success", {
    lines,
    fields: extra.fields ?? [],
    ...(extra.recipe && extra.recipe.length > 0 && { recipe: extra.recipe }),
    links: media.url ? [{ label: t.text("job.result.download", { kind }), url: media.url }] : [],
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
  const t = tOf(view);
  const lines = why.explanation
    ? [why.explanation]
    : [
        why.serviceReason
          ? t.text("job.failed.reason", { reason: why.serviceReason.replace(/[.!\s]+$/, "") })
          : t.text("job.failed.silent"),
        t.text("job.failed.advice", { usage: command("usage") }),
      ];
  return jobCard(view, "error", { lines, footer: footer(view) });
}

/** A job whose result the bot could not fetch or post: say so instead of leaving "working" forever. */
export function undeliverableCard(view: JobView, reason: string): Card {
  return jobCard(view, "error", {
    lines: [tOf(view).text("job.undeliverable.line"), reason],
    footer: footer(view),
  });
}

/** The service took the job but the bot could not record it (store down): the message will not move. */
export function untrackedCard(view: JobView): Card {
  return jobCard(view, "error", {
    lines: [tOf(view).text("job.untracked.line"), tOf(view).text("job.untracked.where")],
  });
}

/**
 * Told privately when a job runs but its message could not be posted: why (`reason`, when the
 * platform said), what arrives, and what not to do.
 */
export function unpostedCard(view: JobView, reason?: string): Card {
  const t = tOf(view);
  return jobCard(view, "warning", {
    lines: [
      t.text("job.unposted.line"),
      ...(reason ? [reason] : []),
      t.text("job.unposted.later", { jobs: command("jobs") }),
      t.text("job.unposted.again"),
    ],
    footer: footer(view),
  });
}

/**
 * What a job shows in its person's DM because the conversation it was asked in refused the bot
 * for good while it ran (`reason`: the platform's refusal, said in their language).
 */
export function divertedCard(shown: Card, reason: Said): Card {
  const why = typeof reason === "string" ? reason.trim() : reason;
  return {
    ...shown,
    lines: [translatorFor(shown.locale).text("job.diverted", { reason: why }), ...shown.lines],
  };
}

/** The short post that tells the requester a job ended (the job's own message is an edit, which pings nobody). */
export function readyNotice(view: JobView, failed: boolean): { text: string } {
  const title = inSentence(view.title);
  return { text: tOf(view).text(failed ? "job.notice.failed" : "job.notice.ready", { title }) };
}
