import { watched } from "../../watch.js";
import { fileObject, typeOf } from "../files.js";
import type { SlackFile, SlackState, Upload, UploadPolicy } from "../state.js";
import { type Failure, fail, isFailure, jsonArg, type Method, memberChannel, str } from "./args.js";
import { readContent } from "./chat.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** What a workspace's upload restrictions say of a file, by its name (and its length, when known). */
function restricted(
  policy: UploadPolicy | undefined,
  filename: string,
  length?: number,
): Failure | undefined {
  if (!policy) return undefined;
  const { filetype, mimetype } = typeOf(filename);
  if (policy.disabled) return fail("file_uploads_disabled");
  if (policy.imagesOnly && !mimetype.startsWith("image/")) return fail("file_uploads_except_images_disabled");
  if (policy.allowedTypes && !policy.allowedTypes.includes(filetype)) return fail("file_type_not_allowed");
  if (length !== undefined && policy.maxBytes !== undefined && length > policy.maxBytes)
    return fail("file_upload_size_restricted");
  if (policy.storageFull) return fail("storage_limit_reached");
  return undefined;
}

/**
 * A file as files.info shows it: while Slack still processes it (malware scan, thumbnails), its
 * mimetype, filetype and pretty_type are empty, as Slack's are.
 */
export function fileShown(state: SlackState, file: SlackFile): SlackFile {
  return state.fileShowable(file.id) ? file : { ...file, mimetype: "", filetype: "", pretty_type: "" };
}

export const fileMethods: Record<string, Method> = {
  "files.getUploadURLExternal": {
    token: "bot",
    run({ state, args, team }) {
      const filename = str(args, "filename");
      const length = Number(str(args, "length"));
      if (!filename || !Number.isInteger(length) || length < 1) return fail("invalid_arguments");
      const refused = restricted(team.uploads, filename, length);
      if (refused) return refused;
      const fileId = state.nextId("F");
      const ticket = state.secret();
      state.uploads.set(fileId, { fileId, ticket, filename, declaredLength: length, completed: false });
      return { ok: true, upload_url: `${state.baseUrl}/upload/v1/${ticket}`, file_id: fileId };
    },
  },
  "files.completeUploadExternal": {
    token: "bot",
    run(ctx) {
      const { state, args, team } = ctx;
      const requested = jsonArg(args, "files");
      if (!Array.isArray(requested) || requested.length === 0) return fail("invalid_arguments");
      const channel = str(args, "channel_id");
      if (channel !== undefined) {
        const member = memberChannel(ctx, "channel_id");
        if (isFailure(member))
          return fail(member.error === "channel_not_found" ? "invalid_channel" : member.error);
      }
      const initialComment = str(args, "initial_comment");
      watched.shown("slack", "files.completeUploadExternal", { text: initialComment });
      // Slack ignores `blocks` when an initial_comment is given.
      const content =
        initialComment !== undefined ? { text: initialComment } : readContent({ blocks: args.blocks });
      if (isFailure(content)) return content;
      const accepted: { upload: Upload; bytes: number; title?: string }[] = [];
      for (const entry of requested) {
        const upload = isObject(entry) ? state.uploads.get(String(entry.id)) : undefined;
        if (!upload?.received || upload.completed) return fail("file_not_found");
        // Restrictions an admin set since the upload began.
        const refused = restricted(team.uploads, upload.filename);
        if (refused) return refused;
        const title = isObject(entry) && typeof entry.title === "string" ? entry.title : undefined;
        accepted.push({ upload, bytes: upload.received.bytes, title });
      }
      const threadTs = str(args, "thread_ts");
      const files: SlackFile[] = accepted.map(({ upload, bytes, title }) => {
        Object.assign(upload, {
          completed: true,
          title: title ?? upload.filename,
          channel,
          threadTs,
          initialComment,
        });
        const file = fileObject(state, {
          id: upload.fileId,
          name: upload.filename,
          title,
          size: bytes,
          user: team.botUserId,
          team: team.id,
        });
        state.files.set(file.id, file);
        state.fileReadyAt.set(file.id, Date.now() + state.fileProcessingMs);
        return file;
      });
      if (channel !== undefined) {
        const message = state.postMessage(channel, {
          text: content.text ?? "",
          blocks: content.blocks ?? [],
          thread_ts: threadTs,
          files,
          upload: true,
        });
        for (const file of files) {
          file.channels = [channel];
          file.shares = {
            public: { [channel]: [{ ts: message.ts, ...(threadTs ? { thread_ts: threadTs } : {}) }] },
          };
        }
      }
      return { ok: true, files: files.map((file) => fileShown(state, file)) };
    },
  },
  /** The bot deletes the files it uploaded, and with them the messages that shared them. */
  "files.delete": {
    token: "bot",
    run({ state, args, team }) {
      const file = state.files.get(str(args, "file") ?? "");
      if (!file || file.user_team !== team.id) return fail("file_not_found");
      if (file.user !== team.botUserId) return fail("cant_delete_file");
      state.deleteFile(file.id);
      return { ok: true };
    },
  },
  "files.info": {
    token: "bot",
    run({ state, args, team }) {
      const file = state.files.get(str(args, "file") ?? "");
      if (!file || file.user_team !== team.id) return fail("file_not_found");
      return { ok: true, file: fileShown(state, file), comments: [], response_metadata: { next_cursor: "" } };
    },
  },
};
