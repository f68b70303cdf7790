/** HTML building blocks shared by the Discord and Slack renderers. Pure. */

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Attributes from a record; undefined and false are left out, true is a bare attribute. */
export function attrs(values: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`))
    .join("");
}

/**
 * The page loads every file through the playground's server, which fetches it from the fake that
 * holds it (with the bot token Slack's private files need).
 */
export function fileUrl(url: string): string {
  return `/file?url=${encodeURIComponent(url)}`;
}

export function link(url: string, label: string): string {
  return /^https?:\/\//.test(url)
    ? `<a href="${escapeHtml(url)}" target="_blank" rel="noreferrer">${label}</a>`
    : label;
}

/** "1.2 KB", as the clients label a file's size. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const kb = bytes / 1024;
  return kb < 1024 ? `${kb.toFixed(kb < 10 ? 1 : 0)} KB` : `${(kb / 1024).toFixed(1)} MB`;
}

/**
 * An image, a video, or any other file as the clients show it: a chip with its name and size that
 * downloads it under its own name.
 */
export function media(url: string, name: string, contentType: string | undefined, size?: number): string {
  const src = escapeHtml(fileUrl(url));
  if (contentType?.startsWith("image/")) return `<img class="media" src="${src}" alt="${escapeHtml(name)}">`;
  if (contentType?.startsWith("video/"))
    return `<video class="media" src="${src}" controls preload="metadata" title="${escapeHtml(name)}"></video>`;
  return (
    `<a${attrs({ class: "file", href: fileUrl(url), download: name, title: `Download ${name}` })}>` +
    `<span class="icon">📄</span><span class="what"><span class="name">${escapeHtml(name)}</span>` +
    (size === undefined ? "" : `<span class="size">${fileSize(size)}</span>`) +
    "</span></a>"
  );
}

/** Replaces matches in already escaped text; `render` gets the escaped groups. */
export function inline(text: string, rules: [RegExp, (...groups: string[]) => string][]): string {
  return rules.reduce((html, [pattern, render]) => html.replace(pattern, (_m, ...g) => render(...g)), text);
}
