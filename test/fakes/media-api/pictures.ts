/**
 * The emulator's pictures: drawn as SVG and rendered with resvg at the aspect ratio a request
 * asked for, the prompt written on them, a look of their own per kind (an edit over its source
 * image, an inpainting over its original, a mockup around its product...), and on every one a
 * badge saying it is the emulator's. The same recipe and sources always give the same bytes.
 * Words need a font of the system's (DejaVu, Noto, Liberation, Helvetica or Arial); without one
 * the shapes and colours are still drawn.
 */

import { crc32 } from "node:zlib";
import { Resvg } from "@resvg/resvg-js";

export type AspectRatio = "1:1" | "16:9" | "9:16" | "4:3" | "3:4";

/** What a picture shows; its sources (images it is drawn over) are given beside it. */
export type PictureRecipe =
  | { kind: "generate"; prompt: string; aspectRatio: AspectRatio }
  | { kind: "edit"; prompt: string; aspectRatio: AspectRatio }
  | { kind: "inpaint"; prompt: string; aspectRatio: AspectRatio }
  | { kind: "mockup"; instruction: string }
  | { kind: "asset"; type: "logo" | "product"; prompt: string; edited: boolean }
  | { kind: "thumbnail"; name: string; prompt: string; aspectRatio: "16:9" | "9:16" }
  | {
      kind: "avatar";
      name: string;
      variant: number;
      portrait: boolean;
      design: Record<string, string | undefined>;
    }
  | { kind: "enhance"; name: string; prompt: string }
  /** An upload whose bytes the emulator did not keep (not an image, or too large). */
  | { kind: "upload"; fileName: string };

/** An image a picture is drawn over: an edit's reference, an inpainting's original and mask... */
export interface SourceImage {
  bytes: Buffer;
  contentType: string;
}

/** The long side of every picture, in pixels. */
export const LONG_SIDE = 768;

export function sizeOf(aspectRatio: AspectRatio): { width: number; height: number } {
  const [a, b] = aspectRatio.split(":").map(Number) as [number, number];
  const even = (n: number) => 2 * Math.round(n / 2);
  return a >= b
    ? { width: LONG_SIDE, height: even((LONG_SIDE * b) / a) }
    : { width: even((LONG_SIDE * a) / b), height: LONG_SIDE };
}

export function aspectOf(recipe: PictureRecipe): AspectRatio {
  switch (recipe.kind) {
    case "generate":
    case "edit":
    case "inpaint":
    case "thumbnail":
      return recipe.aspectRatio;
    case "avatar":
      return recipe.portrait ? "3:4" : "1:1";
    case "enhance":
      return "3:4";
    default:
      return "1:1";
  }
}

const FONT = "DejaVu Sans, Noto Sans, Liberation Sans, Helvetica, Arial, sans-serif";

const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** Words in lines of at most `width` characters, at most `lines` of them (the last one cut with …). */
export function wrap(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.trim().split(/\s+/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (candidate.length <= width) line = candidate;
    else {
      if (line) out.push(line);
      line = word.length > width ? `${word.slice(0, width - 1)}…` : word;
    }
  }
  if (line) out.push(line);
  if (out.length <= lines) return out;
  const kept = out.slice(0, lines);
  kept[lines - 1] = `${kept[lines - 1]!.slice(0, width - 1)}…`;
  return kept;
}

/** Hues of the colour words a prompt may name: "a blue whale" is drawn in blue. */
const COLOUR_WORDS: Record<string, number> = {
  red: 0,
  orange: 28,
  gold: 45,
  golden: 45,
  yellow: 55,
  lime: 90,
  green: 125,
  teal: 175,
  cyan: 185,
  blue: 220,
  navy: 230,
  indigo: 250,
  purple: 280,
  violet: 280,
  magenta: 310,
  pink: 330,
};

/** A colour of the text's own: the colour it names, else one the same text always gets. */
function hueOf(text: string): number {
  const named = text
    .toLowerCase()
    .split(/[^a-z]+/)
    .find((word) => word in COLOUR_WORDS);
  return named ? COLOUR_WORDS[named]! : crc32(text) % 360;
}

function hsl(h: number, s: number, l: number): string {
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/** A small generator seeded by the text, for shapes that differ from prompt to prompt. */
function seeded(text: string): () => number {
  let state = crc32(text) || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

interface Canvas {
  width: number;
  height: number;
  /** The short side: text and marks are sized by it so that every aspect ratio reads the same. */
  unit: number;
  /** Without the words and marks: what another picture drawn over this one shows of it. */
  bare: boolean;
}

function text(
  lines: string[],
  at: { x: number; y: number; size: number; anchor?: "start" | "middle" | "end" },
  style = 'fill="#fff"',
): string {
  const { x, y, size, anchor = "middle" } = at;
  return lines
    .map(
      (line, i) =>
        `<text x="${x}" y="${y + i * size * 1.25}" font-family="${FONT}" font-size="${size}" ` +
        `text-anchor="${anchor}" ${style}>${escapeXml(line)}</text>`,
    )
    .join("");
}

/** The mark on every picture: whose it is, what kind, and its size. */
function badge(c: Canvas, label: string, aspectRatio: AspectRatio): string {
  const size = Math.round(c.unit * 0.034);
  const pad = Math.round(size * 0.6);
  const words = `EMULATOR · ${label}`;
  const width = Math.round(words.length * size * 0.62 + 2 * pad);
  const footer = `${c.width}×${c.height} · ${aspectRatio} · media-bot emulator`;
  const small = Math.round(size * 0.8);
  const footerWidth = Math.round(footer.length * small * 0.6 + 2 * pad);
  return (
    `<rect x="${pad}" y="${pad}" width="${width}" height="${size + 2 * pad}" rx="${pad}" fill="#000" fill-opacity="0.6"/>` +
    text(
      [words],
      { x: 2 * pad, y: 2 * pad + size * 0.85, size, anchor: "start" },
      'fill="#fff" font-weight="bold"',
    ) +
    `<rect x="${c.width - footerWidth}" y="${c.height - small - pad}" width="${footerWidth}" height="${small + pad}" fill="#000" fill-opacity="0.6"/>` +
    text([footer], { x: c.width - pad, y: c.height - pad * 0.9, size: small, anchor: "end" }, 'fill="#fff"')
  );
}

/** The prompt in a dark band across the lower part of the picture. */
function caption(c: Canvas, words: string, lines = 3): string {
  if (c.bare) return "";
  const size = Math.round(c.unit * 0.058);
  const wrapped = wrap(words, Math.max(12, Math.floor(c.width / (size * 0.58)) - 2), lines);
  const height = Math.round(wrapped.length * size * 1.25 + size * 0.9);
  const top = c.height - height - Math.round(c.unit * 0.07);
  return (
    `<rect x="${Math.round(c.width * 0.04)}" y="${top}" width="${Math.round(c.width * 0.92)}" height="${height}" rx="${Math.round(size * 0.5)}" fill="#000" fill-opacity="0.85"/>` +
    text(wrapped, { x: c.width / 2, y: top + size * 1.15, size })
  );
}

const dataUri = (source: SourceImage) =>
  `data:${source.contentType};base64,${source.bytes.toString("base64")}`;

/** Sources side by side over the whole picture (one fills it), cropped to fill their cell. */
function tiled(c: Canvas, sources: readonly SourceImage[]): string {
  const columns = Math.ceil(Math.sqrt(sources.length));
  const rows = Math.ceil(sources.length / columns);
  const w = c.width / columns;
  const h = c.height / rows;
  return sources
    .map(
      (source, i) =>
        `<image x="${(i % columns) * w}" y="${Math.floor(i / columns) * h}" width="${w}" height="${h}" ` +
        `preserveAspectRatio="xMidYMid slice" href="${dataUri(source)}"/>`,
    )
    .join("");
}

/** Where a source is missing (the emulator keeps no bytes of large files): a plain checkerboard. */
function checkerboard(c: Canvas): string {
  const cell = Math.round(c.unit / 12);
  return (
    `<defs><pattern id="check" width="${2 * cell}" height="${2 * cell}" patternUnits="userSpaceOnUse">` +
    `<rect width="${2 * cell}" height="${2 * cell}" fill="#9aa0a6"/><rect width="${cell}" height="${cell}" fill="#c4c7cc"/>` +
    `<rect x="${cell}" y="${cell}" width="${cell}" height="${cell}" fill="#c4c7cc"/></pattern></defs>` +
    `<rect width="100%" height="100%" fill="url(#check)"/>`
  );
}

const background = (c: Canvas, sources: readonly SourceImage[]) =>
  sources.length > 0 ? tiled(c, sources) : checkerboard(c);

/** A landscape of the prompt's colours: sky, a sun, three ridges. */
function landscape(c: Canvas, prompt: string): string {
  const hue = hueOf(prompt);
  const random = seeded(prompt);
  const ridge = (base: number, rough: number, fill: string, opacity: number) => {
    const points: string[] = [`0,${c.height}`];
    for (let i = 0; i <= 8; i++) {
      const y = c.height * (base + (random() - 0.5) * rough);
      points.push(`${Math.round((c.width * i) / 8)},${Math.round(y)}`);
    }
    points.push(`${c.width},${c.height}`);
    return `<polygon points="${points.join(" ")}" fill="${fill}" fill-opacity="${opacity}"/>`;
  };
  return (
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">` +
    `<stop offset="0" stop-color="${hsl(hue, 55, 22)}"/><stop offset="1" stop-color="${hsl((hue + 30) % 360, 70, 62)}"/>` +
    `</linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#sky)"/>` +
    `<circle cx="${Math.round(c.width * (0.2 + random() * 0.6))}" cy="${Math.round(c.height * 0.3)}" r="${Math.round(c.unit * 0.13)}" fill="${hsl((hue + 50) % 360, 90, 78)}"/>` +
    ridge(0.55, 0.25, hsl((hue + 200) % 360, 30, 35), 0.7) +
    ridge(0.68, 0.2, hsl((hue + 190) % 360, 35, 22), 0.85) +
    ridge(0.8, 0.12, hsl((hue + 180) % 360, 40, 12), 1)
  );
}

/** A diagonal ribbon across the top right corner. */
function ribbon(c: Canvas, words: string, colour: string): string {
  const size = Math.round(c.unit * 0.045);
  const length = Math.round(c.unit * 0.6);
  return (
    `<g transform="translate(${c.width} 0) rotate(45) translate(${-length / 2} ${Math.round(c.unit * 0.12)})">` +
    `<rect width="${length}" height="${Math.round(size * 1.8)}" fill="${colour}"/>` +
    text([words], { x: length / 2, y: Math.round(size * 1.3), size }, 'fill="#fff" font-weight="bold"') +
    `</g>`
  );
}

function draw(
  recipe: PictureRecipe,
  sources: readonly SourceImage[],
  c: Canvas,
): { look: string; label: string } {
  switch (recipe.kind) {
    case "generate":
      return { label: "image", look: landscape(c, recipe.prompt) + caption(c, recipe.prompt) };
    case "edit":
      return {
        label: "edit",
        look: background(c, sources) + ribbon(c, "EDITED", "#e01e5a") + caption(c, `✎ ${recipe.prompt}`),
      };
    case "inpaint": {
      const [original, mask] = sources;
      const hue = hueOf(recipe.prompt);
      // The mask's white part is what was painted anew; without one, the middle of the picture.
      const region = mask
        ? `<mask id="region" maskUnits="userSpaceOnUse" x="0" y="0" width="${c.width}" height="${c.height}">` +
          `<image width="${c.width}" height="${c.height}" preserveAspectRatio="none" href="${dataUri(mask)}"/></mask>`
        : `<mask id="region"><ellipse cx="${c.width / 2}" cy="${c.height * 0.45}" rx="${c.width * 0.28}" ry="${c.height * 0.28}" fill="#fff"/></mask>`;
      return {
        label: "inpaint",
        look:
          background(c, original ? [original] : []) +
          `<defs>${region}<pattern id="hatch" width="${c.unit * 0.04}" height="${c.unit * 0.04}" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
          `<rect width="100%" height="100%" fill="${hsl(hue, 70, 55)}"/><rect width="${c.unit * 0.015}" height="${c.unit * 0.04}" fill="${hsl(hue, 70, 35)}"/></pattern></defs>` +
          `<rect width="100%" height="100%" fill="url(#hatch)" fill-opacity="0.75" mask="url(#region)"/>` +
          caption(c, `Inpainted: ${recipe.prompt}`),
      };
    }
    case "mockup": {
      const [product, ...logos] = sources;
      const w = c.width * 0.42;
      const h = c.height * 0.5;
      const x = (c.width - w) / 2;
      const y = c.height * 0.16;
      const face = product
        ? `<image x="${x}" y="${y}" width="${w}" height="${h}" preserveAspectRatio="xMidYMid slice" clip-path="url(#face)" href="${dataUri(product)}"/>`
        : `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${hsl(hueOf(recipe.instruction), 50, 55)}" clip-path="url(#face)"/>`;
      const marks = logos
        .slice(0, 3)
        .map((logo, i) => {
          const r = c.unit * 0.06;
          const cx = x + w - r * (1.3 + i * 2.3);
          const cy = y + h - r * 1.3;
          return (
            `<clipPath id="logo${i}"><circle cx="${cx}" cy="${cy}" r="${r}"/></clipPath>` +
            `<circle cx="${cx}" cy="${cy}" r="${r + 3}" fill="#fff"/>` +
            `<image x="${cx - r}" y="${cy - r}" width="${2 * r}" height="${2 * r}" preserveAspectRatio="xMidYMid slice" clip-path="url(#logo${i})" href="${dataUri(logo)}"/>`
          );
        })
        .join("");
      return {
        label: "mockup",
        look:
          `<defs><radialGradient id="studio" cx="0.5" cy="0.4" r="0.8"><stop offset="0" stop-color="#f4f1ec"/><stop offset="1" stop-color="#bdb6ab"/></radialGradient>` +
          `<clipPath id="face"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${c.unit * 0.03}"/></clipPath></defs>` +
          `<rect width="100%" height="100%" fill="url(#studio)"/>` +
          `<ellipse cx="${c.width / 2}" cy="${y + h + c.unit * 0.03}" rx="${w * 0.62}" ry="${c.unit * 0.035}" fill="#000" fill-opacity="0.25"/>` +
          `<polygon points="${x + w},${y + c.unit * 0.02} ${x + w + c.unit * 0.06},${y + c.unit * 0.06} ${x + w + c.unit * 0.06},${y + h - c.unit * 0.01} ${x + w},${y + h - c.unit * 0.03}" fill="#8d857a"/>` +
          face +
          `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${c.unit * 0.03}" fill="none" stroke="#fff" stroke-opacity="0.6" stroke-width="3"/>` +
          marks +
          caption(c, `Mockup: ${recipe.instruction}`, 2),
      };
    }
    case "asset": {
      const hue = hueOf(recipe.prompt);
      const initials = recipe.prompt
        .split(/\s+/)
        .filter((w) => /^\w/.test(w))
        .slice(0, 2)
        .map((w) => w[0]!.toUpperCase())
        .join("");
      const emblem =
        recipe.type === "logo"
          ? `<circle cx="${c.width / 2}" cy="${c.height * 0.4}" r="${c.unit * 0.24}" fill="${hsl(hue, 65, 45)}"/>` +
            `<circle cx="${c.width / 2}" cy="${c.height * 0.4}" r="${c.unit * 0.2}" fill="none" stroke="#fff" stroke-width="${c.unit * 0.012}"/>` +
            text(
              [initials || "?"],
              { x: c.width / 2, y: c.height * 0.4 + c.unit * 0.07, size: Math.round(c.unit * 0.19) },
              'fill="#fff" font-weight="bold"',
            )
          : `<rect x="${c.width * 0.42}" y="${c.height * 0.12}" width="${c.width * 0.16}" height="${c.height * 0.08}" rx="${c.unit * 0.01}" fill="${hsl(hue, 30, 25)}"/>` +
            `<rect x="${c.width * 0.35}" y="${c.height * 0.19}" width="${c.width * 0.3}" height="${c.height * 0.48}" rx="${c.unit * 0.06}" fill="${hsl(hue, 65, 50)}"/>` +
            `<rect x="${c.width * 0.38}" y="${c.height * 0.34}" width="${c.width * 0.24}" height="${c.height * 0.16}" rx="${c.unit * 0.02}" fill="#fff" fill-opacity="0.85"/>` +
            text(
              [initials || "?"],
              { x: c.width / 2, y: c.height * 0.45, size: Math.round(c.unit * 0.08) },
              `fill="${hsl(hue, 65, 30)}" font-weight="bold"`,
            );
      return {
        label: `${recipe.type}${recipe.edited ? " edit" : ""}`,
        look:
          (sources.length > 0
            ? tiled(c, sources)
            : `<rect width="100%" height="100%" fill="${hsl(hue, 25, 94)}"/>`) +
          emblem +
          caption(c, recipe.prompt, 2),
      };
    }
    case "thumbnail": {
      const hue = hueOf(recipe.prompt);
      const size = Math.round(c.unit * 0.14);
      // The title keeps to the left two thirds; the play button has the rest.
      const title = wrap(
        recipe.name.toUpperCase(),
        Math.max(6, Math.floor((c.width * 0.62) / (size * 0.72))),
        3,
      );
      return {
        label: "thumbnail",
        look:
          `<defs><linearGradient id="bold" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(hue, 85, 45)}"/>` +
          `<stop offset="1" stop-color="${hsl((hue + 140) % 360, 85, 35)}"/></linearGradient></defs>` +
          `<rect width="100%" height="100%" fill="url(#bold)"/>` +
          `<circle cx="${c.width * 0.84}" cy="${c.height * 0.42}" r="${c.unit * 0.12}" fill="#ff0033"/>` +
          `<polygon points="${c.width * 0.84 - c.unit * 0.04},${c.height * 0.42 - c.unit * 0.06} ${c.width * 0.84 - c.unit * 0.04},${c.height * 0.42 + c.unit * 0.06} ${c.width * 0.84 + c.unit * 0.065},${c.height * 0.42}" fill="#fff"/>` +
          text(
            title,
            { x: c.width * 0.05, y: c.height * 0.22 + size, size, anchor: "start" },
            `fill="#fff" font-weight="bold" stroke="#000" stroke-width="${Math.max(2, size * 0.06)}" paint-order="stroke"`,
          ) +
          caption(c, recipe.prompt, 2),
      };
    }
    case "avatar": {
      const { design } = recipe;
      const hue = hueOf(`${design.background ?? ""}${recipe.variant}`);
      const skin = hsl(
        20 + (crc32(`${recipe.name}${recipe.variant}`) % 25),
        45,
        45 + (recipe.variant % 2) * 20,
      );
      const outfit = hsl(hueOf(design.outfit ?? recipe.name), 45, 35);
      const cx = c.width / 2;
      const details = [design.gender, design.age, design.outfit, design.background]
        .filter(Boolean)
        .join(" · ");
      return {
        label: "avatar preview",
        look:
          `<rect width="100%" height="100%" fill="${hsl(hue, 35, 78)}"/>` +
          `<path d="M ${cx - c.width * 0.36} ${c.height} Q ${cx - c.width * 0.34} ${c.height * 0.62} ${cx} ${c.height * 0.6} Q ${cx + c.width * 0.34} ${c.height * 0.62} ${cx + c.width * 0.36} ${c.height} Z" fill="${outfit}"/>` +
          `<rect x="${cx - c.unit * 0.06}" y="${c.height * 0.48}" width="${c.unit * 0.12}" height="${c.height * 0.14}" fill="${skin}"/>` +
          `<ellipse cx="${cx}" cy="${c.height * 0.4}" rx="${c.unit * 0.16}" ry="${c.unit * 0.2}" fill="${skin}"/>` +
          text(
            [`Variant ${recipe.variant}`],
            { x: cx, y: c.unit * 0.22, size: Math.round(c.unit * 0.09) },
            'fill="#1d1c1d" font-weight="bold"',
          ) +
          caption(c, `${recipe.name}${details ? ` · ${details}` : ""}`, 2),
      };
    }
    case "enhance":
      return {
        label: "enhanced photo",
        look:
          background(c, sources) +
          `<defs><radialGradient id="vignette" cx="0.5" cy="0.45" r="0.7"><stop offset="0.55" stop-color="#000" stop-opacity="0"/>` +
          `<stop offset="1" stop-color="#000" stop-opacity="0.55"/></radialGradient></defs>` +
          `<rect width="100%" height="100%" fill="url(#vignette)"/>` +
          ribbon(c, "ENHANCED", "#007a5a") +
          caption(c, `${recipe.name}: ${recipe.prompt}`, 2),
      };
    case "upload":
      return { label: "upload", look: checkerboard(c) + caption(c, recipe.fileName, 2) };
  }
}

export interface PictureOptions {
  /**
   * Without its caption and badge: the picture as a source of another one (an edit of an emulator's
   * image shows the image, not the words written on it).
   */
  bare?: boolean;
}

/** The picture as SVG text: pure, so its words and sizes can be checked without rendering. */
export function pictureSvg(
  recipe: PictureRecipe,
  sources: readonly SourceImage[] = [],
  { bare = false }: PictureOptions = {},
): string {
  const aspectRatio = aspectOf(recipe);
  const { width, height } = sizeOf(aspectRatio);
  const canvas = { width, height, unit: Math.min(width, height), bare };
  const { look, label } = draw(recipe, sources, canvas);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    look +
    (bare ? "" : badge(canvas, label, aspectRatio)) +
    `</svg>`
  );
}

/** The picture as PNG bytes. */
export function renderPicture(
  recipe: PictureRecipe,
  sources: readonly SourceImage[] = [],
  options: PictureOptions = {},
): Buffer {
  const resvg = new Resvg(pictureSvg(recipe, sources, options), {
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
    logLevel: "off",
  });
  return resvg.render().asPng();
}
