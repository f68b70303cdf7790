import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { fileBody, multipartBody } from "../../../src/core/api/multipart.js";
import { AttachmentReadError } from "../../../src/core/base/errors.js";
import { filePart, rejectionOf, sha256Of } from "./support.js";

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** What a standard multipart parser (the one the emulator uses) reads back from a body. */
function parse(contentType: string, body: Buffer) {
  return new Promise<{
    fields: Record<string, string>;
    files: { field: string; name: string; type: string; size: number }[];
  }>((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: { field: string; name: string; type: string; size: number }[] = [];
    const parser = busboy({ headers: { "content-type": contentType } });
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on("end", () => files.push({ field, name: info.filename ?? "", type: info.mimeType, size }));
    });
    parser.on("close", () => resolve({ fields, files }));
    parser.on("error", reject);
    parser.end(body);
  });
}

describe("multipart bodies", () => {
  it("declare their exact length and parse back to the same fields (text as given) and files", async () => {
    const body = multipartBody({
      prompt: 'a "quoted"\nprompt',
      seed: 7,
      im2vid_full: true,
      skipped: undefined,
      referenceImages: [filePart('odd "name".png', "image/png", 70_000), filePart("b.jpg", "image/jpeg", 1)],
    });
    const bytes = await collect(body.chunks);
    expect(bytes.byteLength).toBe(body.length);
    expect(await parse(body.contentType, bytes)).toEqual({
      fields: { prompt: 'a "quoted"\nprompt', seed: "7", im2vid_full: "true" },
      files: [
        { field: "referenceImages", name: "odd %22name%22.png", type: "image/png", size: 70_000 },
        { field: "referenceImages", name: "b.jpg", type: "image/jpeg", size: 1 },
      ],
    });
  });

  it("keep a hostile content type inside its header line", async () => {
    const body = multipartBody({ image: filePart("x.png", "image/png\r\nX-Injected: 1", 10) });
    const text = (await collect(body.chunks)).toString("latin1");
    expect(text).not.toMatch(/\r\nX-Injected/);
  });

  it("fail with AttachmentReadError when a file yields more than its declared size", async () => {
    const part = filePart("big.png", "image/png", 5_000);
    const error = await rejectionOf(collect(fileBody({ ...part, size: 4_000 }).chunks));
    expect(error).toBeInstanceOf(AttachmentReadError);
    expect((error as Error).message).toMatch(/more than the declared 4000 bytes/);
  });

  it("a raw file body is the file's bytes", async () => {
    const body = fileBody(filePart("a.bin", "application/octet-stream", 100_000, 5));
    expect(body.length).toBe(100_000);
    expect(await sha256Of(body.chunks)).toEqual(await sha256Of(filePart("a.bin", "", 100_000, 5).stream));
  });
});
