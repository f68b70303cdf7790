import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import type { FileContent, FileRefusal, SlackFile, SlackState, Upload } from "./state.js";

const TYPES: Record<string, { filetype: string; mimetype: string }> = {
  ".png": { filetype: "png", mimetype: "image/png" },
  ".jpg": { filetype: "jpg", mimetype: "image/jpeg" },
  ".jpeg": { filetype: "jpg", mimetype: "image/jpeg" },
  ".gif": { filetype: "gif", mimetype: "image/gif" },
  ".webp": { filetype: "webp", mimetype: "image/webp" },
  ".mp4": { filetype: "mp4", mimetype: "video/mp4" },
  ".mov": { filetype: "mov", mimetype: "video/quicktime" },
  ".mp3": { filetype: "mp3", mimetype: "audio/mpeg" },
  ".wav": { filetype: "wav", mimetype: "audio/wav" },
  ".txt": { filetype: "text", mimetype: "text/plain" },
  ".json": { filetype: "json", mimetype: "application/json" },
  ".pdf": { filetype: "pdf", mimetype: "application/pdf" },
};
const BINARY = { filetype: "binary", mimetype: "application/octet-stream" };

/** Slack's filetype and mimetype for a file name. */
export function typeOf(name: string) {
  return TYPES[extname(name).toLowerCase()] ?? BINARY;
}

/** What Slack answers for url_private without a valid bot token: a sign-in page, not an error status. */
export const LOGIN_PAGE =
  '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Sign in | Slack</title></head>' +
  "<body><h1>Sign in to your workspace</h1></body></html>";

interface FileMeta {
  id: string;
  name: string;
  title?: string;
  mimetype?: string;
  size: number;
  user: string;
  /** The workspace it was shared in. */
  team: string;
}

export function fileObject(state: SlackState, meta: FileMeta): SlackFile {
  const { filetype, mimetype } = typeOf(meta.name);
  const now = Math.floor(Date.now() / 1000);
  const base = `${state.fileOrigin}/files-pri/${meta.team}-${meta.id}`;
  const name = encodeURIComponent(meta.name);
  return {
    id: meta.id,
    created: now,
    timestamp: now,
    name: meta.name,
    title: meta.title ?? meta.name,
    mimetype: meta.mimetype ?? mimetype,
    filetype,
    pretty_type: filetype.toUpperCase(),
    user: meta.user,
    user_team: meta.team,
    size: meta.size,
    mode: "hosted",
    is_external: false,
    is_public: false,
    url_private: `${base}/${name}`,
    url_private_download: `${base}/download/${name}`,
    permalink: `${state.baseUrl}/files/${meta.user}/${meta.id}/${name}`,
    channels: [],
    shares: {},
  };
}

/** A file a user attached in Slack; its bytes are served (bearer-protected) at url_private(_download). */
export function addUserFile(
  state: SlackState,
  content: FileContent,
  meta: { name: string; mimetype: string; size?: number; user?: string; download?: FileRefusal },
): SlackFile {
  const size = content instanceof Uint8Array ? content.byteLength : meta.size;
  if (size === undefined) throw new Error("addUserFile: a stream factory needs meta.size");
  const user = meta.user ?? state.userIds.requester;
  const team = state.users.get(user)?.team_id;
  if (!team) throw new Error(`addUserFile: unknown user ${user}`);
  const file = fileObject(state, { ...meta, id: state.nextId("F"), size, user, team });
  state.files.set(file.id, file);
  state.fileContents.set(file.id, content);
  if (meta.download) state.fileRefusals.set(file.id, meta.download);
  return file;
}

async function count(stream: Readable, keep?: Buffer[]): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
    keep?.push(chunk as Buffer);
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** Counts the first file part of a multipart body as it streams past. */
function countMultipart(req: IncomingMessage, keep?: Buffer[]): Promise<NonNullable<Upload["received"]>> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    let first: Promise<NonNullable<Upload["received"]>> | undefined;
    parser.on("file", (name, stream) => {
      if (first) stream.resume();
      else first = count(stream, keep).then((c) => ({ ...c, format: "multipart", partName: name }));
    });
    parser.on("close", () => (first ? first.then(resolve, reject) : reject(new Error("no file part"))));
    parser.on("error", reject);
    req.pipe(parser);
  });
}

/**
 * The upload_url: Slack takes the bytes raw or as multipart (@slack/web-api 8 sends one part named
 * `body`). Bytes are counted and hashed while they stream; they are kept only with `keepUploads`.
 */
export async function handleUpload(
  state: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  ticket: string,
): Promise<void> {
  const upload = [...state.uploads.values()].find((u) => u.ticket === ticket);
  if (!upload || req.method !== "POST") {
    req.resume();
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
    return;
  }
  const kept = state.keepUploads ? [] : undefined;
  try {
    upload.received = req.headers["content-type"]?.startsWith("multipart/form-data")
      ? await countMultipart(req, kept)
      : { ...(await count(req, kept)), format: "raw" };
    if (kept) state.fileContents.set(upload.fileId, Buffer.concat(kept));
  } catch (error) {
    res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
    return;
  }
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(`OK - ${upload.received.bytes}`);
}

const FILE_PATH = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)(\/download)?\/[^/]+$/;

export function isFilePath(pathname: string): boolean {
  return FILE_PATH.test(pathname);
}

/** url_private and url_private_download. */
export async function handleDownload(
  state: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const [, id = "", download] = FILE_PATH.exec(pathname) ?? [];
  const refusal = state.fileRefusals.get(id);
  // Only a live bot token of the file's own workspace opens it; anything else gets the sign-in page.
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const issued = state.tokens.get(token);
  const file = state.files.get(id);
  const live = issued && !issued.revoked && (issued.expiresAt === undefined || issued.expiresAt > Date.now());
  const allowed = issued?.kind === "bot" && live && (!file || issued.teamId === file.user_team);
  if (!allowed || refusal === "sign-in-page") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE);
    return;
  }
  const content = state.fileContents.get(id);
  // Files uploaded through the external flow were only counted (unless kept), so there may be nothing to serve.
  if (!file || !content || refusal === 404) {
    res.writeHead(404, { "content-type": "text/plain" }).end("file_not_found");
    return;
  }
  res.writeHead(200, {
    "content-type": file.mimetype,
    "content-length": String(file.size),
    ...(download ? { "content-disposition": `attachment; filename="${encodeURIComponent(file.name)}"` } : {}),
  });
  if (content instanceof Uint8Array) res.end(content);
  else await pipeline(content(), res);
}
