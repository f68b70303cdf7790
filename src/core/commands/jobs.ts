import { z } from "zod";
import type { JobState } from "../api/job-status.js";
import { UndeliverableError } from "../errors.js";
import { viewOf } from "../flows/results.js";
import { listCard, pageOf } from "../render/lists.js";
import { defineCommand } from "./define.js";
import { page } from "./options.js";

const STATE_WORDS: Record<JobState, string> = {
  queued: "Queued",
  working: "Working",
  retrying: "Retrying at the service",
  needs_choice: "Waiting for your choice",
  done: "Done",
  failed: "Failed",
};

/** The jobs the store keeps per person, newest first. */
const KEPT = 100;

export const jobs = defineCommand({
  name: "jobs",
  help: "Show your recent jobs and where each one stands",
  options: z.object({ page }),
  ephemeral: true,
  usesService: false,
  async run({ options, actor, services }) {
    const mine = await services.listJobs(actor, KEPT);
    const { items, paging } = pageOf(mine, options.page);
    const entries = items.map((job) => {
      const progress =
        job.state === "working" && job.progress !== null ? ` ${Math.round(job.progress)}%` : "";
      const when = new Date(job.createdAt).toISOString().slice(0, 16).replace("T", " ");
      const unposted =
        job.error?.code === UndeliverableError.code ? ` · not posted: ${job.error.message}` : "";
      return {
        title: viewOf(job).title,
        detail: `${STATE_WORDS[job.state]}${progress}${unposted} · started ${when} UTC · job ${job.id}`,
      };
    });
    return { reply: listCard("Your jobs", entries, paging, { empty: "You have no jobs yet." }) };
  },
});
