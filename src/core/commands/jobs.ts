import { z } from "zod";
import { isFinished, type JobRecord } from "../../store/jobs.js";
import type { JobState } from "../api/job-status.js";
import { card, type Line } from "../base/cards.js";
import type { UndeliverableError } from "../base/errors.js";
import { msg } from "../i18n/msg.js";
import { deleteButtons } from "../render/delete.js";
import { STATE_WORDS, viewOf } from "../render/job.js";
import { listActions, listCard, pageOf } from "../render/lists.js";
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

function stateOf(job: JobRecord): string {
  const progress = job.state === "working" && job.progress !== null ? ` ${Math.round(job.progress)}%` : "";
  const why = unposted(job) ? ` · not posted: ${job.error!.message}` : "";
  const deleted = job.deleted ? " · deleted" : "";
  return `${STATE_WORDS[job.state]}${progress}${why}${deleted}`;
}

/** The link to a job's message: none for a deleted result's, which is gone. */
const linkOf = (job: JobRecord, url: (job: JobRecord) => string | undefined) =>
  job.deleted ? undefined : url(job);

/** The page's finished results that may still be deleted, each with its title, for their Delete buttons. */
const deletable = (jobs: readonly JobRecord[]) =>
  jobs
    .filter((job) => isFinished(job) && !job.deleted)
    .map((job) => ({ id: job.id, title: viewOf(job).title }));

/** "5 min", "3 h", "2 d": how long ago the job started. */
export function ageOf(createdAt: number, now: number): string {
  const minutes = Math.max(0, Math.floor((now - createdAt) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h`;
  return `${Math.floor(minutes / (24 * 60))} d`;
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
          `${viewOf(job).title} · ${stateOf(job)} · `,
          { userId: job.requester.userId },
          ` · ${ageOf(job.createdAt, now)} ago · job ${job.id}${url ? ` · ${url}` : ""}`,
        ];
      });
      const waiting = options.page === 1 ? await services.listTenantWaiting(actor) : [];
      const queued: Line[] = waiting.map((job) => [
        `${waitingLine(job)} · `,
        { userId: job.userId },
        ` · job ${job.id}`,
      ]);
      if (queued.length > 0) queued.unshift("Waiting their turn (nothing is charged until one starts):");
      if (lines.length === 0 && queued.length === 0) {
        return { reply: card("Everyone's jobs", "info", { lines: ["No jobs yet."] }) };
      }
      const running = all.filter((j) => RUNNING.has(j.state)).length;
      return {
        reply: card("Everyone's jobs", "info", {
          lines: [...queued, ...lines],
          actions: [
            ...cancelButtons(waiting),
            ...deleteButtons(deletable(items)),
            ...listActions([], paging, { list: "jobs_all" }),
          ],
          footer: `${running} running${waiting.length > 0 ? `, ${waiting.length} waiting` : ""}. Page ${paging.page} of ${paging.totalPages}, ${paging.totalCount} in all.`,
        }),
      };
    }
    const mine = await services.listJobs(actor, KEPT);
    const { items, paging } = pageOf(mine, options.page);
    const entries = items.map((job) => {
      const when = new Date(job.createdAt).toISOString().slice(0, 16).replace("T", " ");
      // A result nothing could show has no message worth opening: the entry says why, and links
      // the result itself where it has a link.
      const download = unposted(job) ? resultLink(job) : undefined;
      const message = unposted(job) ? undefined : linkOf(job, services.messageUrl);
      return {
        title: viewOf(job).title,
        detail: `${stateOf(job)} · started ${when} UTC · job ${job.id}`,
        ...(download && { link: { label: "Download the result", url: download } }),
        ...(message && { link: { label: "Open its message", url: message } }),
      };
    });
    const list = listCard("Your jobs", entries, paging, { empty: "You have no jobs yet." }, { list: "jobs" });
    const waiting = options.page === 1 ? await services.listWaiting(actor) : [];
    const deletes = deleteButtons(deletable(items));
    if (waiting.length === 0) return { reply: { ...list, actions: [...deletes, ...list.actions] } };
    return {
      reply: {
        ...list,
        tone: "progress",
        lines: [
          `Waiting their turn (nothing is charged until one starts):\n${waiting.map((job) => waitingLine(job)).join("\n")}`,
          ...(list.fields.length > 0 ? list.lines : []),
        ],
        actions: [...cancelButtons(waiting), ...deletes, ...list.actions],
      },
    };
  },
});
