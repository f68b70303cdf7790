import { z } from "zod";
import { isFinished, type JobRecord } from "../../store/jobs.js";
import type { JobState } from "../api/job-status.js";
import { card, type Line } from "../base/cards.js";
import type { UndeliverableError } from "../base/errors.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import { deleteButtons } from "../render/delete.js";
import { stateWord, viewOf } from "../render/job.js";
import { dateIn, listActions, listCard, pageOf, pagingLine } from "../render/lists.js";
import { cancelButtons, waitingLine } from "../render/queue.js";
import { isAdmin } from "../tenancy/tenancy.js";
import { defineCommand } from "./define.js";
import { AccessError } from "./errors.js";
import { flag, page } from "./options.js";

/** The jobs the store keeps per person, newest first. */
const KEPT = 100;
/** The jobs `--all` reads, of everyone in the server or workspace. */
const KEPT_ALL = 200;
export const RUNNING: ReadonlySet<JobState> = new Set(["queued", "working", "retrying", "needs_choice"]);

const unposted = (job: JobRecord) =>
  job.error?.code === ("chat.undeliverable" satisfies UndeliverableError["code"]);

/** The link a job's result keeps (the service's download address), if it has one. */
function resultLink(job: JobRecord): string | undefined {
  const url = (job.result as { url?: unknown } | null)?.url;
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : undefined;
}

function stateOf(job: JobRecord, t: Translator): string {
  const state = stateWord(job.state, t);
  const said =
    job.state === "working" && job.progress !== null
      ? t.text("lists.jobs.progress", { state, percent: Math.round(job.progress) })
      : state;
  return [
    said,
    unposted(job) && t.text("lists.jobs.not_posted", { reason: job.error!.message }),
    job.deleted && t.text("lists.jobs.deleted"),
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The link to a job's message: none for a deleted result's, which is gone. */
const linkOf = (job: JobRecord, url: (job: JobRecord) => string | undefined) =>
  job.deleted ? undefined : url(job);

/** The page's finished results that may still be deleted, each with its title, for their Delete buttons. */
const deletable = (jobs: readonly JobRecord[]) =>
  jobs
    .filter((job) => isFinished(job) && !job.deleted)
    .map((job) => ({ id: job.id, title: viewOf(job).title }));

/** How long ago, in whole minutes under an hour, hours under two days, then days. */
function elapsed(createdAt: number, now: number): { unit: "minute" | "hour" | "day"; n: number } {
  const minutes = Math.max(0, Math.floor((now - createdAt) / 60_000));
  if (minutes < 60) return { unit: "minute", n: minutes };
  if (minutes < 48 * 60) return { unit: "hour", n: Math.floor(minutes / 60) };
  return { unit: "day", n: Math.floor(minutes / (24 * 60)) };
}

/** "5 min", "3 h", "2 d": how long ago the job started. */
export function ageOf(createdAt: number, now: number, t: Translator = english()): string {
  return t.text("lists.age", elapsed(createdAt, now));
}

/** "5 min ago", "vor 3 Std.", "2 日前": when the job started, as a sentence's part. */
export function agoOf(createdAt: number, now: number, t: Translator = english()): string {
  return t.text("lists.ago", elapsed(createdAt, now));
}

export const jobs = defineCommand({
  name: "jobs",
  help: "Show your recent jobs and where each one stands (admins: everyone's with all)",
  options: z.object({
    page,
    all: flag("Admins: every running and recent job of this server or workspace").optional(),
  }),
  ephemeral: true,
  usesService: false,
  async run({ options, actor, settings, services }) {
    const t = translatorFor(readerLocale(actor));
    const jobRef = (id: string) => t.text("lists.jobs.id", { id });
    const waitingTitle = t.text("lists.jobs.waiting");
    if (options.all) {
      if (!isAdmin(actor, settings)) {
        throw new AccessError("access.admin_only", msg("refusal.access.admin_jobs"));
      }
      // Running ones first, as an operator looks for what is stuck; then the most recent.
      const all = await services.listTenantJobs(actor, KEPT_ALL);
      const ordered = [
        ...all.filter((j) => RUNNING.has(j.state)),
        ...all.filter((j) => !RUNNING.has(j.state)),
      ];
      const { items, paging } = pageOf(ordered, options.page);
      const now = Date.now();
      const lines: Line[] = items.map((job) => {
        const url = linkOf(job, services.messageUrl);
        return [
          `${viewOf(job).title} · ${stateOf(job, t)} · `,
          { userId: job.requester.userId },
          ` · ${agoOf(job.createdAt, now, t)} · ${jobRef(job.id)}${url ? ` · ${url}` : ""}`,
        ];
      });
      const waiting = options.page === 1 ? await services.listTenantWaiting(actor) : [];
      const queued: Line[] = waiting.map((job) => [
        `${waitingLine(job, t)} · `,
        { userId: job.userId },
        ` · ${jobRef(job.id)}`,
      ]);
      if (queued.length > 0) queued.unshift(waitingTitle);
      const title = t.text("lists.jobs.title_all");
      if (lines.length === 0 && queued.length === 0) {
        return { reply: card(title, "info", { lines: [t.text("lists.jobs.empty_all")] }) };
      }
      const running = all.filter((j) => RUNNING.has(j.state)).length;
      return {
        reply: card(title, "info", {
          lines: [...queued, ...lines],
          actions: [
            ...cancelButtons(waiting, t),
            ...deleteButtons(deletable(items), t),
            ...listActions([], paging, { list: "jobs_all" }, t),
          ],
          footer: t.text("lists.jobs.footer_all", {
            running,
            waiting: waiting.length,
            paging: pagingLine(paging, t),
          }),
        }),
      };
    }
    const mine = await services.listJobs(actor, KEPT);
    const { items, paging } = pageOf(mine, options.page);
    const entries = items.map((job) => {
      const started = t.text("lists.jobs.started", { when: dateIn(t, job.createdAt, true) });
      // A result nothing could show has no message worth opening: the entry says why, and links
      // the result itself where it has a link.
      const download = unposted(job) ? resultLink(job) : undefined;
      const message = unposted(job) ? undefined : linkOf(job, services.messageUrl);
      return {
        title: viewOf(job).title,
        detail: `${stateOf(job, t)} · ${started} · ${jobRef(job.id)}`,
        ...(download && { link: { label: t.text("lists.jobs.download"), url: download } }),
        ...(message && { link: { label: t.text("lists.jobs.open"), url: message } }),
      };
    });
    const list = listCard(
      t.text("lists.jobs.title"),
      entries,
      paging,
      { empty: t.text("lists.jobs.empty") },
      { list: "jobs" },
      t,
    );
    const waiting = options.page === 1 ? await services.listWaiting(actor) : [];
    const deletes = deleteButtons(deletable(items), t);
    if (waiting.length === 0) return { reply: { ...list, actions: [...deletes, ...list.actions] } };
    return {
      reply: {
        ...list,
        tone: "progress",
        lines: [
          [waitingTitle, ...waiting.map((job) => waitingLine(job, t))].join("\n"),
          ...(list.fields.length > 0 ? list.lines : []),
        ],
        actions: [...cancelButtons(waiting, t), ...deletes, ...list.actions],
      },
    };
  },
});
