/**
 * The fake Discord's channel as a Discord client shows it: author, "used /command", markdown,
 * embeds with their colour bar, attachments as pictures and videos, buttons and selects, and the
 * modal a command opened. Pure: fake state in, HTML out; `data-*` attributes tell the page what a
 * click does.
 */
import {
  type APIEmbed,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  ComponentType,
  MessageFlags,
} from "discord-api-types/v10";
import { attrs, escapeHtml, fileUrl, inline, media } from "./html.js";

type Json = Record<string, unknown>;

/** Display names by user id, for authors and mentions. */
export type Names = Record<string, string>;

const anchor = (url: string, label: string) =>
  `<a href="${url}" target="_blank" rel="noreferrer">${label}</a>`;

/** Discord markdown on escaped text: links, bold, italics, code, mentions, line breaks. */
export function markdown(text: string, names: Names): string {
  return inline(escapeHtml(text), [
    [/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, (label, url) => anchor(url!, label!)],
    [/\*\*([^*]+)\*\*/g, (bold) => `<strong>${bold}</strong>`],
    [/(^|\s)[*_]([^*_\n]+)[*_]/g, (pre, it) => `${pre}<em>${it}</em>`],
    [/`([^`]+)`/g, (code) => `<code>${code}</code>`],
    [/&lt;@!?(\d+)&gt;/g, (id) => `<span class="mention">@${escapeHtml(names[id!] ?? "unknown")}</span>`],
    [/&lt;t:(\d+)(?::\w)?&gt;/g, (s) => escapeHtml(new Date(Number(s) * 1000).toLocaleString("en-GB"))],
    [/\n/g, () => "<br>"],
    // Backslash-escaped markdown characters show as themselves.
    [/\\([*_~`|\\-])/g, (char) => char!],
  ]);
}

const hex = (colour: number | undefined) =>
  colour === undefined ? "#4e5058" : `#${colour.toString(16).padStart(6, "0")}`;

function embed(e: APIEmbed, names: Names): string {
  const fields = (e.fields ?? [])
    .map(
      (f) =>
        `<div class="field${f.inline ? " inline" : ""}"><div class="name">${markdown(f.name, names)}</div>` +
        `<div>${markdown(f.value, names)}</div></div>`,
    )
    .join("");
  const image = e.image?.url ? `<img class="media" src="${escapeHtml(fileUrl(e.image.url))}" alt="">` : "";
  const thumb = e.thumbnail?.url
    ? `<img class="thumb" src="${escapeHtml(fileUrl(e.thumbnail.url))}" alt="">`
    : "";
  return (
    `<div class="embed" style="border-left-color:${hex(e.color)}">${thumb}` +
    (e.title ? `<div class="title">${markdown(e.title, names)}</div>` : "") +
    (e.description ? `<div>${markdown(e.description, names)}</div>` : "") +
    (fields ? `<div class="fields">${fields}</div>` : "") +
    image +
    (e.footer?.text ? `<div class="footer">${escapeHtml(e.footer.text)}</div>` : "") +
    "</div>"
  );
}

const BUTTON_STYLE: Record<number, string> = { 1: "primary", 2: "secondary", 3: "success", 4: "danger" };

function component(c: Json, messageId: string): string {
  if (c.type === ComponentType.ActionRow)
    return `<div class="row">${(c.components as Json[]).map((x) => component(x, messageId)).join("")}</div>`;
  if (c.type === ComponentType.Button) {
    const label = `${c.emoji ? escapeHtml(String((c.emoji as Json).name ?? "")) : ""} ${escapeHtml(String(c.label ?? ""))}`;
    if (c.url)
      return `<a class="button secondary" href="${escapeHtml(String(c.url))}" target="_blank">${label} ↗</a>`;
    return `<button${attrs({
      class: `button ${BUTTON_STYLE[c.style as number] ?? "secondary"}`,
      "data-act": "discord-button",
      "data-message": messageId,
      "data-custom": String(c.custom_id),
      disabled: c.disabled === true,
    })}>${label.trim()}</button>`;
  }
  if (c.type === ComponentType.StringSelect) {
    // A default option shows as chosen, as Discord's client shows it; otherwise the placeholder.
    const options = (c.options as Json[])
      .map(
        (o) =>
          `<option${attrs({ value: String(o.value), selected: o.default === true })}>${escapeHtml(String(o.label))}</option>`,
      )
      .join("");
    const chosen = (c.options as Json[]).some((o) => o.default === true);
    return `<select${attrs({
      "data-act": "discord-select",
      "data-message": messageId,
      "data-custom": String(c.custom_id),
      disabled: c.disabled === true,
    })}><option value=""${chosen ? "" : " selected"} disabled>${escapeHtml(String(c.placeholder ?? "Make a selection"))}</option>${options}</select>`;
  }
  return "";
}

function attachments(message: APIMessage): string {
  // Discord shows a file an embed displays only once, in the embed.
  const inEmbeds = new Set(message.embeds.flatMap((e) => [e.image?.url, e.thumbnail?.url]));
  return message.attachments
    .filter((a) => !inEmbeds.has(a.url))
    .map((a) => media(a.url, a.filename, a.content_type, a.size))
    .join("");
}

function message(m: APIMessage, names: Names): string {
  const flags = m.flags ?? 0;
  // Discord names the command under replies to one; modal and button answers carry no name.
  const used =
    m.interaction_metadata && m.interaction?.name
      ? `<div class="used"><span class="mention">@${escapeHtml(names[m.interaction_metadata.user.id] ?? "someone")}</span> used <span class="command">/${escapeHtml(m.interaction.name)}</span></div>`
      : "";
  const author = names[m.author.id] ?? m.author.username;
  const thinking =
    flags & MessageFlags.Loading ? `<div class="thinking">${escapeHtml(author)} is thinking…</div>` : "";
  const ephemeral =
    flags & MessageFlags.Ephemeral ? `<div class="ephemeral">👁 Only you can see this</div>` : "";
  return (
    `<div${attrs({ class: "message", "data-id": m.id })}>${used}` +
    `<div class="author">${escapeHtml(author)}${m.author.bot ? ' <span class="tag">APP</span>' : ""}</div>` +
    thinking +
    (m.content ? `<div class="content">${markdown(m.content, names)}</div>` : "") +
    m.embeds.map((e) => embed(e, names)).join("") +
    attachments(m) +
    (m.components ?? []).map((c) => component(c as unknown as Json, m.id)).join("") +
    ephemeral +
    "</div>"
  );
}

/** The channel's messages, oldest first, as the requester sees them. */
export function discordChannel(messages: readonly APIMessage[], names: Names): string {
  return messages.map((m) => message(m, names)).join("");
}

function modalInput(c: Json, label: string, description: string | undefined): string {
  const id = String(c.custom_id);
  const head = `<label for="dm-${escapeHtml(id)}">${escapeHtml(label)}${c.required === false ? "" : ' <span class="required">*</span>'}</label>${description ? `<div class="hint">${escapeHtml(description)}</div>` : ""}`;
  const common = { id: `dm-${id}`, name: id, required: c.required !== false };
  if (c.type === ComponentType.TextInput) {
    const box = {
      ...common,
      minlength: c.min_length as number | undefined,
      maxlength: c.max_length as number | undefined,
      placeholder: c.placeholder as string | undefined,
    };
    const value = escapeHtml(String(c.value ?? ""));
    return c.style === 2
      ? `${head}<textarea${attrs(box)}>${value}</textarea>`
      : `${head}<input${attrs({ ...box, type: "text", value })}>`;
  }
  if (c.type === ComponentType.FileUpload)
    return `${head}<input${attrs({ ...common, type: "file", multiple: Number(c.max_values ?? 1) > 1, "data-kind": "files" })}>`;
  if (c.type === ComponentType.StringSelect) {
    const options = (c.options as Json[])
      .map((o) => `<option value="${escapeHtml(String(o.value))}">${escapeHtml(String(o.label))}</option>`)
      .join("");
    return `${head}<select${attrs({ ...common, multiple: Number(c.max_values ?? 1) > 1 })}>${c.required === false ? '<option value=""></option>' : ""}${options}</select>`;
  }
  return "";
}

/** The modal a command or button opened, as a form the page submits through the fake. */
export function discordModal(modal: APIModalInteractionResponseCallbackData): string {
  const inputs = (modal.components as unknown as Json[]).map((row) => {
    if (row.type === ComponentType.Label)
      return modalInput(row.component as Json, String(row.label), row.description as string | undefined);
    const [inner] = (row.components as Json[] | undefined) ?? [];
    return inner ? modalInput(inner, String(inner.label ?? inner.custom_id), undefined) : "";
  });
  return (
    `<form${attrs({ class: "modal discord", "data-act": "discord-modal", "data-custom": modal.custom_id })}>` +
    `<h2>${escapeHtml(modal.title)}</h2>${inputs.map((i) => `<div class="input">${i}</div>`).join("")}` +
    `<div class="buttons"><button type="button" class="button secondary" data-act="dismiss">Cancel</button>` +
    `<button type="submit" class="button primary">Submit</button></div></form>`
  );
}
