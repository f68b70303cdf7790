import { fileObject } from "../files.js";
import type { SlackFile, Upload } from "../state.js";
import { fail, isFailure, jsonArg, type Method, memberChannel, str } from "./args.js";
import { readContent } from "./chat.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export const fileMethods: Record<string, Method> = {
  "files.getUploadURLExternal": {
    token: "bot",
    run({ state, args }) {
      const filename = str(args, "filename");
      const length = Number(str(args, "length"));
      if (!filename || !Number.isInteger(length) || length < 1) return fail("invalid_arguments");
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
      // Slack ignores `blocks` when an initial_comment is given.
      const content =
        initialComment !== undefined ? { text: initialComment } : readContent({ blocks: args.blocks });
      if (isFailure(content)) return content;
      const accepted: { upload: Upload; bytes: number; title?: string }[] = [];
      for (const entry of requested) {
        const upload = isObject(entry) ? state.uploads.get(String(entry.id)) : undefined;
        if (!upload?.received || upload.completed) return fail("file_not_found");
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
      return { ok: true, files };
    },
  },
  "files.info": {
    token: "bot",
    run({ state, args, team }) {
      const file = state.files.get(str(args, "file") ?? "");
      if (!file || file.user_team !== team.id) return fail("file_not_found");
      return { ok: true, file, comments: [], response_metadata: { next_cursor: "" } };
    },
  },
};
