import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import busboy from "busboy";
import type { z } from "zod";
import { badRequest, HttpError } from "./errors.js";
import { KEEP_IMAGE_BYTES, type PictureSource } from "./media.js";
import type { State } from "./state.js";
import type { AccountState, RecordedCall, RecordedFile } from "./types.js";

export interface Ctx {
  state: State;
  req: IncomingMessage;
  method: string;
  path: string;
  query: Record<string, string>;
  params: Record<string, string>;
  call: RecordedCall;
}

export interface ApiCtx extends Ctx {
  account: AccountState;
}

export type Reply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers: Record<string, string>; text: string }
  | { status?: number; headers: Record<string, string>; size: number; stream: Readable };

const MAX_JSON_BYTES = 1024 * 1024;

export const contentTypeOf = (req: IncomingMessage): string =>
  (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();

export const isMultipart = (ctx: Ctx): boolean => contentTypeOf(ctx.req) === "multipart/form-data";

/** "name is required; seed: Invalid input: expected int" in the words a web service would use. */
function describeIssues(issues: z.core.$ZodIssue[], input: unknown): string {
  return issues
    .map((issue) => {
      const path = issue.path.join(".") || "body";
      const value = issue.path.reduce<unknown>(
        (at, key) => (at && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[key] : undefined),
        input,
      );
      return issue.code === "invalid_type" && value === undefined
        ? `${path} is required`
        : `${path}: ${issue.message}`;
    })
    .join("; ");
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues, input));
  return parsed.data;
}

/** A JSON body, recorded and validated; anything but application/json is refused like body parsers do. */
export async function readJson<S extends z.ZodType>(ctx: Ctx, schema: S): Promise<z.infer<S>> {
  if (contentTypeOf(ctx.req) !== "application/json")
    throw badRequest("Content-Type must be application/json");
  const json = await parseJsonBody(ctx.req);
  ctx.call.json = json;
  return validate(schema, json);
}

export async function parseJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) throw new HttpError(413, "request body too large");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw badRequest("invalid JSON body");
  }
}

export interface Form {
  fields: Record<string, string>;
  files: RecordedFile[];
  /** The bytes of image files no larger than KEEP_IMAGE_BYTES, which a result may be drawn over. */
  images: Map<RecordedFile, Buffer>;
}

/**
 * A multipart form, recorded. File parts are streamed through a hash and counted; only small
 * images are kept (a result is drawn over them).
 */
export function readForm(ctx: Ctx): Promise<Form> {
  return new Promise((resolve, reject) => {
    const form: Form = { fields: {}, files: [], images: new Map() };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers });
    } catch (error) {
      reject(badRequest(`invalid multipart body: ${(error as Error).message}`));
      return;
    }
    parser.on("field", (name, value) => {
      form.fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      const hash = createHash("sha256");
      let size = 0;
      let chunks: Buffer[] | undefined = info.mimeType.startsWith("image/") ? [] : undefined;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        if (size > KEEP_IMAGE_BYTES) chunks = undefined;
        chunks?.push(chunk);
      });
      stream.on("end", () => {
        const file = {
          field,
          filename: info.filename ?? "",
          contentType: info.mimeType,
          size,
          sha256: hash.digest("hex"),
        };
        form.files.push(file);
        if (chunks) form.images.set(file, Buffer.concat(chunks));
      });
    });
    parser.on("error", (error: Error) => reject(badRequest(`invalid multipart body: ${error.message}`)));
    parser.on("close", () => {
      ctx.call.fields = form.fields;
      ctx.call.files = form.files;
      resolve(form);
    });
    ctx.req.pipe(parser);
  });
}

export const json = (body: unknown): Reply => ({ json: body });

export const success = (body: Record<string, unknown> = {}): Reply => json({ result: "success", ...body });

/** The kept image files of a form's field, as sources a result is drawn over. */
export const formSources = (form: Form, field: string): PictureSource[] =>
  form.files.flatMap((file) => {
    const bytes = file.field === field ? form.images.get(file) : undefined;
    return bytes ? [{ bytes, contentType: file.contentType, sha256: file.sha256 }] : [];
  });
