import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import type { UploadedFile } from "./messages.js";

export interface ParsedBody {
  /** The JSON body, or `payload_json` of a multipart body. */
  json: unknown;
  files: UploadedFile[];
  invalidJson: boolean;
  /** A file above the per-attachment limit, or the whole request above the request limit. */
  tooLarge: boolean;
}

export interface BodyLimits {
  perFile: number;
  request: number;
}

/**
 * Reads the whole body before anything is answered: a 413 sent while the client still uploads
 * surfaces in undici as a reset connection, which discord.js retries instead of reporting.
 */
export async function readBody(req: IncomingMessage, limits: BodyLimits): Promise<ParsedBody> {
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("multipart/form-data")) return readMultipart(req, limits);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limits.request) chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  const parsed = size > 0 ? parseJson(text) : { json: undefined, invalid: false };
  return { json: parsed.json, files: [], invalidJson: parsed.invalid, tooLarge: size > limits.request };
}

function parseJson(text: string): { json: unknown; invalid: boolean } {
  try {
    return { json: JSON.parse(text), invalid: false };
  } catch {
    return { json: undefined, invalid: true };
  }
}

function readMultipart(req: IncomingMessage, limits: BodyLimits): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const files: UploadedFile[] = [];
    const fields: Record<string, string> = {};
    let total = 0;
    let tooLarge = false;
    const parser = busboy({ headers: req.headers, limits: { fieldSize: limits.request } });
    parser.on("file", (field, stream, info) => {
      const index = /^files\[(\d+)\]$/.exec(field)?.[1];
      const file: UploadedFile = {
        field,
        ...(index !== undefined ? { index: Number(index) } : {}),
        filename: info.filename ?? field,
        contentType: info.mimeType,
        size: 0,
        data: Buffer.alloc(0),
      };
      files.push(file);
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => {
        file.size += chunk.length;
        total += chunk.length;
        // Oversized uploads are only counted, so a test may send 30 MiB without the fake keeping it.
        if (file.size <= limits.perFile) chunks.push(chunk);
      });
      stream.on("end", () => {
        file.data = Buffer.concat(chunks);
        if (file.size > limits.perFile || total > limits.request) tooLarge = true;
      });
    });
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("error", reject);
    parser.on("close", () => {
      const { payload_json, ...rest } = fields;
      const parsed = payload_json === undefined ? { json: rest, invalid: false } : parseJson(payload_json);
      resolve({ json: parsed.json, files, invalidJson: parsed.invalid, tooLarge });
    });
    req.pipe(parser);
  });
}
