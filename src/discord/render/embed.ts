import type { APIEmbed, APIEmbedField } from "discord-api-types/v10";
import { type Card, progressBar, type Tone } from "../../core/base/cards.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { cut, isWebUrl, lineMarkdown, link, markdown } from "./text.js";

/** Discord's own palette, so the cards look at home in the client. */
export const TONE_COLOURS: Record<Tone, number> = {
  info: 0x5865f2,
  progress: 0x3498db,
  success: 0x57f287,
  warning: 0xfee75c,
  error: 0xed4245,
};

/** An image a card shows: an upload of the same message (`attachment://name`) or a web address. */
export interface EmbedImage {
  title: string;
  url: string;
}

/**
 * A recipe entry too long for a field (a prompt of up to 2000 characters) goes whole into the
 * description; the others become fields, short settings side by side.
 */
const LONG_RECIPE = L.embedFieldValue;

function recipeFields(card: Card): APIEmbedField[] {
  return (card.recipe ?? [])
    .filter((r) => r.value.length <= LONG_RECIPE)
    .map((r) => field({ name: r.name, value: r.value, inline: r.value.length <= 40 }));
}

/** Progress, the paragraphs, the long recipe entries, then the links, which are kept whole when the text is cut. */
function description(card: Card, max: number): string {
  const head = [
    ...(card.progress
      ? [`${progressBar(card.progress.percent)} · ${markdown(card.progress.label, 100)}`]
      : []),
    ...card.lines.map((line) => lineMarkdown(line, max)),
    ...(card.recipe ?? [])
      .filter((r) => r.value.length > LONG_RECIPE)
      .map((r) => `**${markdown(r.name, 100)}**\n${markdown(r.value, max)}`),
  ].join("\n\n");
  const tail = card.links
    .filter((l) => isWebUrl(l.url))
    .map((l) => link(l.label, l.url))
    .join("\n");
  if (!tail) return cut(head, max);
  if (!head) return cut(tail, max);
  const room = max - tail.length - 2;
  return room > 0 ? `${cut(head, room)}\n\n${tail}` : cut(`${head}\n\n${tail}`, max);
}

function field(f: Card["fields"][number]): APIEmbedField {
  // The link is kept whole: the value is cut to make room for it.
  const to = f.link && isWebUrl(f.link.url) ? ` · ${link(f.link.label, f.link.url)}` : "";
  const value = markdown(f.value, L.embedFieldValue - to.length) || "—";
  return {
    name: markdown(f.name, L.embedFieldName) || "\u200b",
    value: `${value}${to}`,
    ...(f.inline !== undefined && { inline: f.inline }),
  };
}

const embedChars = (e: APIEmbed) =>
  (e.title?.length ?? 0) +
  (e.description?.length ?? 0) +
  (e.footer?.text.length ?? 0) +
  (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);

/**
 * The card as embeds: one for the card, with its image when it has one; with several images
 * (variants), one more embed per image so each keeps its caption. Everything is cut to Discord's
 * limits: text first, then the last fields, so the total stays within 6000 characters.
 */
export function cardEmbeds(card: Card, images: readonly EmbedImage[]): APIEmbed[] {
  const colour = TONE_COLOURS[card.tone];
  const single = images.length === 1 ? images[0] : undefined;
  const extra = images.length > 1 ? images.slice(0, L.embedsPerMessage - 1) : [];
  const main: APIEmbed = {
    title: markdown(card.title, L.embedTitle),
    color: colour,
    description: description(card, L.embedDescription),
    fields: [...card.fields.map(field), ...recipeFields(card)].slice(0, L.embedFields),
    ...(single && { image: { url: single.url } }),
    ...(card.footer && { footer: { text: cut(card.footer, L.embedFooter) } }),
  };
  const galleries: APIEmbed[] = extra.map((image) => ({
    title: markdown(image.title, L.embedTitle),
    color: colour,
    image: { url: image.url },
  }));

  const others = galleries.reduce((n, e) => n + embedChars(e), 0);
  let over = embedChars(main) + others - L.embedTotal;
  if (over > 0 && main.description) {
    const keep = Math.max(100, main.description.length - over);
    main.description = description(card, keep);
    over = embedChars(main) + others - L.embedTotal;
  }
  while (over > 0 && main.fields?.length) {
    main.fields.pop();
    over = embedChars(main) + others - L.embedTotal;
  }
  if (!main.description) delete main.description;
  if (main.fields?.length === 0) delete main.fields;
  return [main, ...galleries];
}
