/**
 * The fake Slack's channel as Slack's client shows it: Block Kit (headers, sections with fields
 * and accessories, context, images, actions), thread replies with their files, messages only the
 * user sees, and the open modal with its inputs (file inputs included). Pure: fake state in, HTML
 * out; `data-*` attributes tell the page what a click does.
 */
import type { EphemeralMessage, Message, SlackFile, SlackView } from "../../fakes/slack/index.js";
import { attrs, escapeHtml, fileUrl, inline, media } from "./html.js";

type Json = Record<string, unknown>;

/** Display names by user id, for authors and mentions. */
export type Names = Record<string, string>;

/** Slack mrkdwn on escaped text: <url|label>, <@U…>, *bold*, _italics_, `code`, line breaks. */
export function mrkdwn(text: string, names: Names): string {
  return inline(escapeHtml(text), [
    [/&lt;@(\w+)&gt;/g, (id) => `<span class="mention">@${escapeHtml(names[id!] ?? id!)}</span>`],
    [
      /&lt;(https?:\/\/[^|\s]+?)(?:\|([^&]+?))?&gt;/g,
      (url, label) => `<a href="${url}" target="_blank" rel="noreferrer">${label || url}</a>`,
    ],
    [/(^|[\s(])\*([^*\n]+)\*/g, (pre, bold) => `${pre}<strong>${bold}</strong>`],
    [/(^|[\s(])_([^_\n]+)_/g, (pre, it) => `${pre}<em>${it}</em>`],
    [/`([^`]+)`/g, (code) => `<code>${code}</code>`],
    [/\n/g, () => "<br>"],
    // Slack's own escapes of <, > and & in message text show as the characters.
    [/&amp;(lt|gt|amp);/g, (entity) => `&${entity};`],
  ]);
}

const text = (t: unknown, names: Names): string => {
  if (typeof t !== "object" || t === null) return "";
  const { type, text: value } = t as Json;
  return type === "mrkdwn" ? mrkdwn(String(value), names) : escapeHtml(String(value ?? ""));
};

interface Where {
  /** The message's ts, for block_actions. */
  ts: string;
  names: Names;
  /** The channel's files by id: an image block may show one by its `slack_file` id. */
  files: ReadonlyMap<string, SlackFile>;
}

/** An image element's or block's picture: its URL, or the Slack file it names. */
function imageSource(e: Json, where: Where): string {
  const file = e.slack_file as { id?: string; url?: string } | undefined;
  const url = file ? (file.url ?? where.files.get(String(file.id))?.url_private) : e.image_url;
  return escapeHtml(fileUrl(String(url ?? "")));
}

function element(e: Json, where: Where, blockId: unknown): string {
  const act = {
    "data-message": where.ts,
    "data-action": String(e.action_id),
    "data-block": typeof blockId === "string" ? blockId : undefined,
  };
  if (e.type === "button")
    return `<button${attrs({
      class: `button ${e.style === "primary" ? "primary" : e.style === "danger" ? "danger" : "secondary"}`,
      "data-act": "slack-button",
      ...act,
    })}>${text(e.text, where.names)}</button>`;
  if (e.type === "static_select" || e.type === "overflow") {
    // The initial option shows as chosen, as Slack's client shows it; otherwise the placeholder.
    const initial = (e.initial_option as Json | undefined)?.value;
    const options = ((e.options as Json[] | undefined) ?? [])
      .map(
        (o) =>
          `<option${attrs({ value: String(o.value), selected: initial !== undefined && o.value === initial })}>${text(o.text, where.names)}</option>`,
      )
      .join("");
    const placeholder = e.placeholder ? text(e.placeholder, where.names) : "⋯";
    return `<select${attrs({ "data-act": "slack-select", ...act })}><option value=""${initial === undefined ? " selected" : ""} disabled>${placeholder}</option>${options}</select>`;
  }
  if (e.type === "image")
    return `<img class="thumb" src="${imageSource(e, where)}" alt="${escapeHtml(String(e.alt_text ?? ""))}">`;
  if (e.type === "mrkdwn" || e.type === "plain_text") return `<span>${text(e, where.names)}</span>`;
  return "";
}

function block(b: Json, where: Where): string {
  switch (b.type) {
    case "header":
      return `<div class="header">${text(b.text, where.names)}</div>`;
    case "section": {
      const fields = ((b.fields as Json[] | undefined) ?? [])
        .map((f) => `<div class="field">${text(f, where.names)}</div>`)
        .join("");
      const accessory = b.accessory ? element(b.accessory as Json, where, b.block_id) : "";
      return (
        `<div class="section"><div class="body">${b.text ? `<div>${text(b.text, where.names)}</div>` : ""}` +
        `${fields ? `<div class="fields">${fields}</div>` : ""}</div>${accessory}</div>`
      );
    }
    case "context":
      return `<div class="context">${(b.elements as Json[]).map((e) => element(e, where, b.block_id)).join(" ")}</div>`;
    case "actions":
      return `<div class="row">${(b.elements as Json[]).map((e) => element(e, where, b.block_id)).join("")}</div>`;
    case "image":
      return `<figure>${b.title ? `<figcaption>${text(b.title, where.names)}</figcaption>` : ""}<img class="media" src="${imageSource(b, where)}" alt="${escapeHtml(String(b.alt_text ?? ""))}"></figure>`;
    case "divider":
      return "<hr>";
    default:
      return "";
  }
}

function body(m: Pick<Message, "text" | "blocks" | "files">, where: Where): string {
  const blocks = m.blocks.length
    ? m.blocks.map((b) => block(b as unknown as Json, where)).join("")
    : m.text
      ? `<div>${mrkdwn(m.text, where.names)}</div>`
      : "";
  const files = (m.files ?? []).map((f) => media(f.url_private, f.name, f.mimetype, f.size)).join("");
  return blocks + files;
}

function message(m: Message, where: Omit<Where, "ts">, replies: readonly Message[]): string {
  const { names } = where;
  const thread = replies.length
    ? `<div class="thread">${replies.map((r) => message(r, where, [])).join("")}</div>`
    : "";
  return (
    `<div${attrs({ class: "message", "data-ts": m.ts })}>` +
    `<div class="author">${escapeHtml(names[m.user] ?? m.user)}${m.bot_id ? ' <span class="tag">APP</span>' : ""}</div>` +
    body(m, { ...where, ts: m.ts }) +
    thread +
    "</div>"
  );
}

function ephemeral(m: EphemeralMessage, where: Omit<Where, "ts">, app: string): string {
  return (
    `<div${attrs({ class: "message", "data-ts": m.message_ts })}>` +
    `<div class="author">${escapeHtml(app)} <span class="tag">APP</span></div>` +
    body(m, { ...where, ts: m.message_ts }) +
    `<div class="ephemeral">👁 Only visible to you</div></div>`
  );
}

/**
 * Top-level messages and the user's ephemeral ones in time order; thread replies (where the bot
 * puts result files) shown under their parent. Ephemeral messages name no author: `app` is the
 * app that sent them.
 */
export function slackChannel(
  messages: readonly Message[],
  ephemerals: readonly EphemeralMessage[],
  names: Names,
  app: string,
): string {
  const isReply = (m: Message) => m.thread_ts !== undefined && m.thread_ts !== m.ts;
  const where = { names, files: new Map(messages.flatMap((m) => m.files ?? []).map((f) => [f.id, f])) };
  const items = [
    ...messages
      .filter((m) => !isReply(m))
      .map((m) => ({
        ts: m.ts,
        html: message(
          m,
          where,
          messages.filter((r) => isReply(r) && r.thread_ts === m.ts),
        ),
      })),
    ...ephemerals.map((m) => ({ ts: m.message_ts, html: ephemeral(m, where, app) })),
  ];
  return items
    .sort((a, b) => Number(a.ts) - Number(b.ts))
    .map((i) => i.html)
    .join("");
}

/**
 * A person's direct messages with the app, as Slack's DM view shows them: what the app sent there
 * (a private answer's files, in the thread of its message) under a line naming the two sides.
 */
export function slackDirect(messages: readonly Message[], names: Names, app: string, person: string): string {
  const intro =
    `<div class="intro">This conversation is just between <span class="mention">@${escapeHtml(names[person] ?? person)}</span>` +
    ` and ${escapeHtml(app)}.${messages.length ? "" : ` Nothing here yet: ${escapeHtml(app)} sends files of private answers here.`}</div>`;
  return intro + slackChannel(messages, [], names, app);
}

function input(b: Json, names: Names): string {
  const e = b.element as Json;
  const id = String(e.action_id);
  const required = b.optional !== true;
  const head = `<label for="sv-${escapeHtml(id)}">${text(b.label, names)}${required ? "" : ' <span class="hint">(optional)</span>'}</label>`;
  const hint = b.hint ? `<div class="hint">${text(b.hint, names)}</div>` : "";
  const common = { id: `sv-${id}`, name: id, required, "data-type": String(e.type) };
  const initial = e.initial_value ?? (e.initial_option as Json | undefined)?.value;
  const options = ((e.options as Json[] | undefined) ?? []).map(
    (o) =>
      `<option${attrs({ value: String(o.value), selected: o.value === initial })}>${text(o.text, names)}</option>`,
  );
  let field: string;
  switch (e.type) {
    case "plain_text_input":
      field = e.multiline
        ? `<textarea${attrs(common)}>${escapeHtml(String(initial ?? ""))}</textarea>`
        : `<input${attrs({ ...common, type: "text", value: initial as string | undefined })}>`;
      break;
    case "number_input":
      field = `<input${attrs({ ...common, type: "number", step: e.is_decimal_allowed ? "any" : "1", min: e.min_value as string | undefined, max: e.max_value as string | undefined, value: initial as string | undefined })}>`;
      break;
    case "static_select":
      field = `<select${attrs(common)}><option value=""></option>${options.join("")}</select>`;
      break;
    case "checkboxes":
      field = ((e.options as Json[] | undefined) ?? [])
        .map(
          (o) =>
            `<label class="check"><input${attrs({ type: "checkbox", name: id, value: String(o.value), "data-type": "checkboxes" })}> ${text(o.text, names)}</label>`,
        )
        .join("");
      break;
    case "file_input":
      field = `<input${attrs({ ...common, type: "file", multiple: Number(e.max_files ?? 10) > 1 })}>`;
      break;
    default:
      // External selects get their options from the app as the user types: here the value is typed.
      field = `<input${attrs({ ...common, type: "text", placeholder: "type a value" })}>`;
  }
  return `<div${attrs({ class: "input", "data-block": String(b.block_id ?? id) })}>${head}${hint}${field}<div class="error"></div></div>`;
}

/** The open modal as a form the page submits through the fake (a signed view_submission to Bolt). */
export function slackModal(view: SlackView, names: Names): string {
  const blocks = view.blocks
    .map((b) => b as unknown as Json)
    .map((b) => (b.type === "input" ? input(b, names) : block(b, { ts: "", names, files: new Map() })))
    .join("");
  return (
    `<form${attrs({ class: "modal slack", "data-act": "slack-view", "data-view": view.id })}>` +
    `<h2>${text(view.title, names)}</h2>${blocks}<div class="buttons">` +
    `<button type="button" class="button secondary" data-act="dismiss">${view.close ? text(view.close, names) : "Cancel"}</button>` +
    `<button type="submit" class="button primary">${view.submit ? text(view.submit, names) : "Submit"}</button></div></form>`
  );
}

/** What a click in the Home tab names as its message: a Home is no message (gestures.ts). */
export const HOME = "home";

/** A person's App Home tab as the app last published it, or what Slack shows before that. */
export function slackHome(view: SlackView | undefined, names: Names): string {
  if (!view)
    return '<div class="intro">Open the Home tab to see what media-bot publishes for you here.</div>';
  const where = { ts: HOME, names, files: new Map<string, SlackFile>() };
  return `<div class="home">${view.blocks.map((b) => block(b as unknown as Json, where)).join("")}</div>`;
}
