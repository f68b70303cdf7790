import { z } from "zod";
import { badRequest, notFound } from "../errors.js";
import { json, readJson } from "../http.js";
import { api, param } from "../router.js";

const Initialize = z.object({
  fileName: z.string().trim().min(1),
  contentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png"),
  fileSize: z.number().int().positive(),
});

const Finalize = z.object({ mediaId: z.string().min(1) });

export const mediaRoutes = [
  api("POST", "/api/media/initialize", async (ctx) => {
    const declared = await readJson(ctx, Initialize);
    const record = ctx.state.media.initialize(ctx.account.apiKey, declared);
    const uploadUrl = `${ctx.state.origin}${ctx.state.signer.sign(`/storage/uploads/${record.id}`)}`;
    return json({ mediaId: record.id, uploadUrl });
  }),

  api("POST", "/api/media/finalize", async (ctx) => {
    const { mediaId } = await readJson(ctx, Finalize);
    const found = ctx.state.media.find(mediaId);
    // The endpoint declares only 400 besides 401, so unknown and foreign ids are a 400 too.
    if (found?.owner !== ctx.account.apiKey) throw badRequest(`media not found: ${mediaId}`);
    if (!found.record.uploaded)
      throw badRequest("upload not complete: no file was received for this mediaId");
    found.record.finalized = true;
    return json({ success: true });
  }),

  api("GET", "/api/media/:id/view", (ctx) => {
    const id = param(ctx, "id");
    const found = ctx.state.media.find(id);
    if (found?.owner !== ctx.account.apiKey || !found.ready || !found.record.finalized) {
      throw notFound("media not found");
    }
    const { record } = found;
    if (record.content.type === "upload" && !record.contentType.startsWith("image/")) {
      throw notFound("media has no view");
    }
    const body = ctx.state.media.body(record);
    return { headers: { "content-type": body.contentType }, size: body.size, stream: body.stream };
  }),
];
