import type { APIAttachment, APIEmbed, APIMessage, APIUser, MessageType } from "discord-api-types/v10";
import { errors } from "./errors.js";
import { MessageFlag, walkComponents } from "./rules.js";
import type { World } from "./state.js";
import { type Issue, invalidFormBody } from "./validate.js";

/** A file part of a multipart request. */
export interface UploadedFile {
  field: string;
  /** n of `files[n]`, which `attachments[].id` refers to. */
  index?: number;
  filename: string;
  contentType: string;
  size: number;
  data: Buffer;
}

/** The message fields of a create or edit body (already checked against its schema). */
export interface MessageBody {
  content?: string | null;
  embeds?: Record<string, unknown>[] | null;
  components?: Record<string, unknown>[] | null;
  attachments?: { id: string | number; filename?: string | null; description?: string | null }[] | null;
  flags?: number | null;
  tts?: boolean | null;
  nonce?: string | number | null;
  message_reference?: { message_id?: string } | null;
  poll?: unknown;
}

// Flags a sender may set; Discord drops the others.
const SETTABLE_FLAGS =
  MessageFlag.SuppressEmbeds |
  MessageFlag.Ephemeral |
  MessageFlag.SuppressNotifications |
  MessageFlag.IsVoiceMessage |
  MessageFlag.IsComponentsV2;

export interface NewMessage {
  channelId: string;
  author: APIUser;
  body: MessageBody;
  files: UploadedFile[];
  type: MessageType;
  /** Loading placeholder of a deferred interaction response. */
  loading?: boolean;
  extra?: Partial<APIMessage>;
}

export function createMessage(world: World, spec: NewMessage): APIMessage {
  const { body } = spec;
  const attachments = resolveAttachments(world, spec.channelId, [], body.attachments, spec.files);
  const content = body.content ?? "";
  const message: APIMessage = {
    id: world.ids.snowflake(),
    type: spec.type,
    channel_id: spec.channelId,
    author: spec.author,
    content,
    timestamp: world.isoNow(),
    edited_timestamp: null,
    tts: body.tts ?? false,
    pinned: false,
    flags: ((body.flags ?? 0) & SETTABLE_FLAGS) | (spec.loading ? MessageFlag.Loading : 0),
    attachments,
    embeds: renderEmbeds(body.embeds, attachments),
    components: withComponentIds(body.components) as APIMessage["components"],
    ...mentions(world, content),
    ...(body.nonce != null ? { nonce: body.nonce } : {}),
    ...(body.message_reference?.message_id
      ? {
          message_reference: {
            type: 0,
            message_id: body.message_reference.message_id,
            channel_id: spec.channelId,
          },
        }
      : {}),
    ...spec.extra,
  };
  if (!spec.loading && isEmpty(message) && !body.poll) throw errors.emptyMessage();
  world.messages.set(message.id, message);
  return message;
}

/** Applies an edit as Discord does: absent fields stay, null or [] clears, `attachments` lists what stays. */
export function editMessage(
  world: World,
  message: APIMessage,
  body: MessageBody,
  files: UploadedFile[],
): APIMessage {
  const attachments =
    body.attachments === undefined && files.length === 0
      ? message.attachments
      : resolveAttachments(world, message.channel_id, message.attachments, body.attachments, files);
  const keptFlags = (message.flags ?? 0) & (MessageFlag.Ephemeral | MessageFlag.IsComponentsV2);
  const edited: APIMessage = {
    ...message,
    attachments,
    flags:
      body.flags == null ? keptFlags : keptFlags | (body.flags & SETTABLE_FLAGS & ~MessageFlag.Ephemeral),
    edited_timestamp: world.isoNow(),
  };
  if (body.content !== undefined) {
    edited.content = body.content ?? "";
    Object.assign(edited, mentions(world, edited.content));
  }
  if (body.embeds !== undefined) edited.embeds = renderEmbeds(body.embeds, attachments);
  if (body.components !== undefined) {
    edited.components = withComponentIds(body.components) as APIMessage["components"];
  }
  if (isEmpty(edited)) throw errors.emptyMessage();
  world.messages.set(edited.id, edited);
  return edited;
}

function isEmpty(message: APIMessage): boolean {
  return (
    !message.content.trim() &&
    message.embeds.length === 0 &&
    !message.components?.length &&
    message.attachments.length === 0
  );
}

/**
 * An `attachments` entry either names an attachment the message already has (kept) or refers to
 * the upload `files[id]` (added). Uploads nobody refers to are added too, as Discord does.
 */
function resolveAttachments(
  world: World,
  channelId: string,
  existing: APIAttachment[],
  listed: MessageBody["attachments"],
  files: UploadedFile[],
): APIAttachment[] {
  const issues: Issue[] = [];
  const used = new Set<UploadedFile>();
  const store = (file: UploadedFile, entry?: NonNullable<MessageBody["attachments"]>[number]) => {
    used.add(file);
    return world.storeFile(
      channelId,
      { filename: entry?.filename ?? file.filename, contentType: file.contentType, data: file.data },
      entry?.description ? { description: entry.description } : {},
    );
  };
  const result: APIAttachment[] = listed
    ? listed.flatMap((entry, i) => {
        const id = String(entry.id);
        const kept = existing.find((a) => a.id === id);
        if (kept) return [entry.description ? { ...kept, description: entry.description } : kept];
        const file = files.find((f) => f.index === Number(id));
        if (file) return [store(file, entry)];
        issues.push({ path: `attachments.${i}.id`, message: `no attachment or files[${id}] with id ${id}` });
        return [];
      })
    : [...existing];
  if (issues.length) throw invalidFormBody({ kind: "rule", issues });
  for (const file of files) if (!used.has(file)) result.push(store(file));
  return result;
}

/** Discord numbers every component of a message it stores; requests may leave `id` out. */
export function withComponentIds(components: MessageBody["components"]): unknown[] {
  const copy = structuredClone(components ?? []);
  const all = walkComponents(copy, "").map(({ component }) => component);
  const taken = new Set(all.map((c) => c.id).filter((id) => typeof id === "number"));
  let next = 1;
  for (const component of all) {
    if (typeof component.id === "number") continue;
    while (taken.has(next)) next++;
    component.id = next;
    taken.add(next);
  }
  return withoutNulls(copy) as unknown[];
}

/** `attachment://name` in an embed points at that attachment of the same message. */
function renderEmbeds(embeds: MessageBody["embeds"], attachments: APIAttachment[]): APIEmbed[] {
  const attached = (url: unknown) =>
    typeof url === "string" && url.startsWith("attachment://")
      ? attachments.find((a) => a.filename === url.slice("attachment://".length))
      : undefined;
  const resolve = (url: unknown) => attached(url)?.url ?? url;
  return (embeds ?? []).map((raw) => {
    const embed = withoutNulls(structuredClone(raw)) as Record<string, Record<string, unknown> | unknown>;
    for (const key of ["image", "thumbnail", "footer", "author"]) {
      const part = embed[key] as Record<string, unknown> | undefined;
      if (!part) continue;
      // Discord shows an embed's images through its media proxy, and says where (proxy_url).
      const proxied = (key === "image" || key === "thumbnail") && attached(part.url)?.proxy_url;
      if (proxied) part.proxy_url = proxied;
      if ("url" in part && key !== "author") part.url = resolve(part.url);
      if ("icon_url" in part) part.icon_url = resolve(part.icon_url);
    }
    if (Array.isArray(embed.fields)) {
      embed.fields = embed.fields.map((field: Record<string, unknown>) => ({ inline: false, ...field }));
    }
    return { type: "rich", ...embed } as APIEmbed;
  });
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

function mentions(
  world: World,
  content: string,
): Pick<APIMessage, "mentions" | "mention_roles" | "mention_everyone"> {
  const userIds = [...content.matchAll(/<@!?(\d{17,20})>/g)].map((m) => m[1]!);
  return {
    mentions: [...new Set(userIds)].flatMap((id) => {
      const user = world.users.get(id);
      return user ? [user] : [];
    }),
    mention_roles: [...new Set([...content.matchAll(/<@&(\d{17,20})>/g)].map((m) => m[1]!))],
    mention_everyone: /@(everyone|here)\b/.test(content),
  };
}
