import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Ctx, Reply } from "../http.js";
import { KEEP_IMAGE_BYTES, linkName } from "../media.js";
import { keyless, param } from "../router.js";

/** Errors in the shape of an S3 presigned URL, since that is what the real links are. */
function s3Error(status: number, code: string, message: string): Reply {
  return {
    status,
    headers: { "content-type": "application/xml" },
    text: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  };
}

function checkSignature(ctx: Ctx): Reply | undefined {
  const verdict = ctx.state.signer.verify(ctx.path, ctx.query);
  if (verdict === "expired") return s3Error(403, "AccessDenied", "Request has expired");
  if (verdict === "invalid") {
    return s3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided.",
    );
  }
  return undefined;
}

function sizeMismatch(received: number, declared: number): Reply {
  return received < declared
    ? s3Error(
        400,
        "IncompleteBody",
        `You did not provide the number of bytes declared (${received} of ${declared}).`,
      )
    : s3Error(400, "EntityTooLarge", `The body (${received} bytes) is larger than declared (${declared}).`);
}

/**
 * Counts and hashes a body, keeping it only when `keep` says so and it is no larger than
 * KEEP_IMAGE_BYTES: a 50 MB PUT costs a few chunks of memory.
 */
async function digest(
  req: IncomingMessage,
  keep: boolean,
): Promise<{ bytes: number; sha256: string; kept?: Buffer }> {
  const hash = createHash("sha256");
  let bytes = 0;
  let chunks: Buffer[] | undefined = keep ? [] : undefined;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    hash.update(chunk);
    if (bytes > KEEP_IMAGE_BYTES) chunks = undefined;
    chunks?.push(chunk);
  }
  return { bytes, sha256: hash.digest("hex"), ...(chunks && { kept: Buffer.concat(chunks) }) };
}

export const storageRoutes = [
  keyless(["PUT"], "/storage/uploads/:mediaId", async (ctx) => {
    const refused = checkSignature(ctx);
    if (refused) return refused;
    const found = ctx.state.media.find(param(ctx, "mediaId"));
    if (found?.record.content.type !== "upload") return s3Error(404, "NoSuchUpload", "Unknown upload.");
    const { record } = found;
    if (record.finalized) return s3Error(403, "AccessDenied", "This upload is already finalized.");
    const contentType = ctx.req.headers["content-type"] ?? "";
    if (contentType !== record.contentType) {
      return s3Error(
        403,
        "SignatureDoesNotMatch",
        `Content-Type "${contentType}" is not the signed "${record.contentType}".`,
      );
    }
    const length = ctx.req.headers["content-length"];
    if (length === undefined && ctx.state.settings.uploadRequiresContentLength) {
      return s3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
    }
    if (length !== undefined && Number(length) !== record.fileSize)
      return sizeMismatch(Number(length), record.fileSize);
    const { bytes, sha256, kept } = await digest(ctx.req, record.contentType.startsWith("image/"));
    if (bytes !== record.fileSize) return sizeMismatch(bytes, record.fileSize);
    Object.assign(record, { receivedBytes: bytes, sha256, uploaded: true });
    // A new PUT before finalize replaces the last one, bytes and all.
    record.content = kept ? { type: "upload", bytes: kept } : { type: "upload" };
    return { status: 200, headers: { etag: `"${sha256.slice(0, 32)}"` }, text: "" };
  }),

  keyless(["GET", "HEAD"], "/storage/files/:mediaId/:fileName", (ctx) => {
    const refused = checkSignature(ctx);
    if (refused) return refused;
    const found = ctx.state.media.find(param(ctx, "mediaId"));
    if (!found?.ready) return s3Error(404, "NoSuchKey", "The specified key does not exist.");
    const { contentType, size, stream } = ctx.state.media.body(found.record);
    const disposition = `inline; filename="${linkName(found.record.fileName)}"`;
    return { headers: { "content-type": contentType, "content-disposition": disposition }, size, stream };
  }),
];
