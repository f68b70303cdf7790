import type {
  APIActionRowComponent,
  APIAllowedMentions,
  APIComponentInMessageActionRow,
  APIEmbed,
} from "discord-api-types/v10";
import { isCard } from "../../core/base/cards.js";
import type { Message, OutgoingFile } from "../../core/base/ports.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { actionRows } from "./components.js";
import { cardEmbeds, type EmbedImage } from "./embed.js";
import { cut, isWebUrl, markdown } from "./text.js";

/**
 * A core message as the JSON body of a Discord message (create or edit) and the files that go
 * with it. The body is complete: an edit with it replaces text, embeds, controls and attachments
 * alike, so applying the same edit twice (a delivery repeated after a restart) changes nothing.
 */

export interface MessageBody {
  content: string;
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIComponentInMessageActionRow>[];
  allowed_mentions: APIAllowedMentions;
  /** `id` is the index of the file in `files`. */
  attachments: { id: string; filename: string; description?: string }[];
}

export interface RenderedMessage {
  body: MessageBody;
  /** Named as the body's attachments say, in their order. */
  files: { name: string; file: OutgoingFile }[];
}

const ALT_TEXT = 1_024;

/** `attachment://` finds only names of letters, digits, `_`, `-` and `.`. */
function attachmentName(name: string, taken: ReadonlySet<string>): string {
  const clean = name.replace(/[^\w.-]+/g, "_").replace(/^[._]+/, "") || "file";
  if (!taken.has(clean)) return clean;
  const dot = clean.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [clean.slice(0, dot), clean.slice(dot)] : [clean, ""];
  for (let n = 2; ; n += 1) {
    const candidate = `${stem}-${n}${extension}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export function renderMessage(message: Message, options: { mentionUserId?: string } = {}): RenderedMessage {
  const mention = options.mentionUserId ? `<@${options.mentionUserId}> ` : "";
  const allowed_mentions: APIAllowedMentions = {
    parse: [],
    ...(options.mentionUserId && { users: [options.mentionUserId] }),
  };
  if (!isCard(message)) {
    return {
      body: {
        content: `${mention}${markdown(message.text, L.content - mention.length)}`,
        embeds: [],
        components: [],
        allowed_mentions,
        attachments: [],
      },
      files: [],
    };
  }

  const files: RenderedMessage["files"] = [];
  const attachments: MessageBody["attachments"] = [];
  const images: EmbedImage[] = [];
  for (const media of message.media) {
    if (media.file) {
      const filename = attachmentName(media.file.name, new Set(files.map((f) => f.name)));
      attachments.push({
        id: String(files.length),
        filename,
        ...(media.alt && { description: cut(media.alt, ALT_TEXT) }),
      });
      files.push({ name: filename, file: media.file });
      // A video plays from its attachment; only images can sit inside the embed.
      if (media.kind === "image") images.push({ title: media.name, url: `attachment://${filename}` });
    } else if (media.kind === "image" && isWebUrl(media.url)) {
      images.push({ title: media.name, url: media.url });
    }
  }
  return {
    body: {
      content: mention.trim(),
      embeds: cardEmbeds(message, images),
      components: actionRows(message.actions, message.selects),
      allowed_mentions,
      attachments,
    },
    files,
  };
}
