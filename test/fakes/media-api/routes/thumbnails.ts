import { z } from "zod";
import { Failure } from "../errors.js";
import { type ApiCtx, readJson, success, validate } from "../http.js";
import { newId } from "../ids.js";
import { api, param } from "../router.js";
import type { Thumbnail } from "../state.js";
import { finishedAt, requireJob, requireMedia } from "./common.js";

const Generate = z.object({
  prompt: z.string().trim().min(1).max(5_000),
  name: z.string().trim().min(1).max(200),
  aspectRatio: z.enum(["16:9", "9:16"]).default("16:9"),
  referenceImageMediaIds: z.array(z.string().min(1)).max(10).optional(),
  negativePrompt: z.string().max(2_000).optional(),
  seed: z.number().int().optional(),
});

const Page = z
  .object({ page: z.string().regex(/^\d+$/, "must be a positive integer").transform(Number).default(1) })
  .refine((query) => query.page >= 1, { message: "must be a positive integer", path: ["page"] });

/** A thumbnail as the API shows it: with a signed, absolute imageUrl made at answer time. */
const shown = (ctx: ApiCtx, thumbnail: Thumbnail) => ({
  ...thumbnail,
  imageUrl: ctx.state.signedUrl(thumbnail.mediaId, `${thumbnail.name}.png`),
});

export function thumbnailRoutes(listPath: string) {
  return [
    // First, so a list path such as /api/thumbnail/list wins over /api/thumbnail/:id.
    api("GET", listPath, (ctx) => {
      const { page } = validate(Page, ctx.query);
      const size = ctx.state.settings.thumbnailsPageSize;
      const all = ctx.state.thumbnails.list(ctx.account.apiKey).reverse(); // newest first
      const thumbnails = all.slice((page - 1) * size, page * size).map((t) => shown(ctx, t));
      return success({ thumbnails, page, totalPages: Math.ceil(all.length / size), totalCount: all.length });
    }),
    // The spec shows no HTTP codes here, so every business refusal uses the failure envelope.
    api("POST", "/api/thumbnail/generate", async (ctx) => {
      const input = await readJson(ctx, Generate);
      for (const id of input.referenceImageMediaIds ?? [])
        requireMedia(ctx, id, "image", "reference image", "failure");
      ctx.state.accounts.charge(ctx.account, "thumbnail.generate");
      const { state, account } = ctx;
      const job = state.jobs.start(account.apiKey, "thumbnail", (timing) => {
        const ready = state.doneOf(timing);
        const recipe = {
          kind: "thumbnail" as const,
          name: input.name,
          prompt: input.prompt,
          aspectRatio: input.aspectRatio,
        };
        const content = { type: "picture" as const, recipe, sources: [] };
        const media = state.media.generate(account.apiKey, `${input.name}.png`, content, ready);
        const thumbnail = {
          id: newId(),
          jobId: timing.id,
          name: input.name,
          prompt: input.prompt,
          aspectRatio: input.aspectRatio,
          mediaId: media.id,
          createdAt: finishedAt(timing),
        };
        state.thumbnails.add(account.apiKey, thumbnail, ready);
        return { kind: "thumbnail" as const, thumbnail };
      });
      return success({ jobId: job.id, usage: state.accounts.usage(account) });
    }),

    api("GET", "/api/thumbnail/:id", (ctx) => {
      const job = requireJob(ctx, param(ctx, "id"), ["thumbnail"], { what: "thumbnail job", missing: 404 });
      const { phase, percent } = ctx.state.jobs.progress(job);
      switch (phase) {
        case "done":
          return success({ status: "completed", progress: 100, thumbnail: shown(ctx, job.detail.thumbnail) });
        case "failed":
          throw new Failure(job.plan.fail ?? "thumbnail generation failed", { status: "failed" });
        case "queued":
        case "starting":
          return success({ status: "waiting", progress: 0 });
        default:
          return success({ status: "started", progress: percent });
      }
    }),
  ];
}
