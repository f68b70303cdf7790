import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The README is a short front page and the rest lives in docs/: every relative link there must
 * reach a file of the repository, every #anchor a heading of its page, and every page must be
 * reachable from the front page.
 *
 * No markdown parser is a dependency of the project, so links are found with a small scanner:
 * fenced code blocks are skipped, inline code spans are blanked (a `[x](y)` inside backticks is
 * not a link), then `[text](target)`, `![alt](target)`, reference definitions and the src/href of
 * HTML tags are read. Anchors are compared with GitHub's heading slugs (github-slugger's rule).
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const FRONT_PAGE = "README.md";
const FRONT_PAGE_MAX_BYTES = 8 * 1024;

const docs = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`)
  .sort();
/** The pages whose links are checked: the front page, docs/, and the changelog it links to. */
const pages = [FRONT_PAGE, ...docs, "CHANGELOG.md"];

/** A fence opens with ``` or ~~~ (also indented, inside a list item) and closes with the same. */
const FENCE = /^\s*(`{3,}|~{3,})/;

/** The text with fenced code blocks and inline code spans blanked, newlines kept (for line numbers). */
function prose(text: string): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  const kept = lines.map((line) => {
    const open = FENCE.exec(line)?.[1];
    if (fence) {
      if (open && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      return "";
    }
    if (open) {
      fence = open;
      return "";
    }
    return line;
  });
  // A code span may wrap across lines but not across a blank line (a paragraph's end).
  return kept
    .join("\n")
    .replace(/(`+)((?:(?!\n[ \t]*\n)[\s\S])*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, " "));
}

interface Link {
  target: string;
  line: number;
  image: boolean;
}

/** [text](target "title"), with one level of brackets inside the text, a <target>, or parentheses in it. */
const INLINE =
  /(!?)\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
/** [label]: target */
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)/gm;
/** <img src="..."> and <a href="..."> */
const HTML = /<(img|a)\s[^>]*?\b(?:src|href)="([^"]*)"/gi;

function linksIn(text: string): Link[] {
  const body = prose(text);
  const lineAt = (index: number) => body.slice(0, index).split("\n").length;
  const links: Link[] = [];
  for (const m of body.matchAll(INLINE)) {
    links.push({ target: m[2]!.replace(/^<|>$/g, ""), line: lineAt(m.index), image: m[1] === "!" });
  }
  for (const m of body.matchAll(DEFINITION)) {
    links.push({ target: m[1]!.replace(/^<|>$/g, ""), line: lineAt(m.index), image: false });
  }
  for (const m of body.matchAll(HTML)) {
    links.push({ target: m[2]!, line: lineAt(m.index), image: m[1]!.toLowerCase() === "img" });
  }
  return links;
}

/** GitHub's anchor for a heading: its text lowercased, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link or an image: its text
    .replace(/<[^>]+>/g, "") // HTML tags
    .replace(/[`*]/g, ""); // code and emphasis marks
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (repeats get -1, -2, ...) and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text).split("\n")) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*?\b(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]!);
  return anchors;
}

const read = (path: string) => readFileSync(join(root, path), "utf8");
const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;
/** http:, https:, mailto:, ... : not checked here. */
const EXTERNAL = /^[a-z][a-z\d+.-]*:/i;

/** What is wrong with one link of `page`, or undefined. */
function problem(page: string, link: Link): string | undefined {
  if (EXTERNAL.test(link.target)) return undefined;
  if (link.target === "") return "empty link";
  const hash = link.target.indexOf("#");
  const path = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
  const file = path === "" ? join(root, page) : resolve(dirname(join(root, page)), path);
  const inRepo = relative(root, file);
  if (inRepo.startsWith("..")) return "points outside the repository";
  if (!existsSync(file)) return `${inRepo} does not exist`;
  if (link.image && !(statSync(file).isFile() && IMAGE.test(file))) return `${inRepo} is not an image`;
  if (anchor !== undefined) {
    if (extname(file) !== ".md")
      return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : "anchor on a non-markdown file";
    if (!anchorsOf(readFileSync(file, "utf8")).has(anchor)) return `no heading #${anchor} in ${inRepo}`;
  }
  return undefined;
}

describe("the documentation", () => {
  it("keeps the front page under 8 KB", () => {
    expect(statSync(join(root, FRONT_PAGE)).size).toBeLessThan(FRONT_PAGE_MAX_BYTES);
  });

  it("has every relative link and #anchor of README.md, docs/*.md and CHANGELOG.md resolve", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of linksIn(read(page))) {
        const wrong = problem(page, link);
        if (wrong) broken.push(`${page}:${link.line}: (${link.target}) ${wrong}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("shows a picture on the front page, and reaches every docs page from it", () => {
    const links = linksIn(read(FRONT_PAGE));
    const pictures = links.filter((l) => l.image && !EXTERNAL.test(l.target));
    expect(pictures.length).toBeGreaterThan(0);
    const reached = new Set(links.map((l) => l.target.split("#")[0]));
    expect(docs.filter((page) => !reached.has(page))).toEqual([]);
  });
});

describe("the link checker", () => {
  it("finds links, images, definitions and HTML, and none in code", () => {
    const text = [
      "See [a](a.md), [the `b` page](docs/b.md#part) and ![pic](docs/p.png 'title').",
      "A [link that",
      'wraps](<c d.md>) and <img src="e.png"> and [parens](f_(g).md).',
      "",
      "`[not](code.md)` and ``[not `either`](x.md)``",
      "",
      "  ```sh",
      "  [not](fenced.md)",
      "  ```",
      "~~~",
      "[not](tilde.md)",
      "~~~",
      "[ref]: h.md",
    ].join("\n");
    expect(linksIn(text)).toEqual([
      { target: "a.md", line: 1, image: false },
      { target: "docs/b.md#part", line: 1, image: false },
      { target: "docs/p.png", line: 1, image: true },
      { target: "c d.md", line: 2, image: false },
      { target: "f_(g).md", line: 3, image: false },
      { target: "h.md", line: 13, image: false },
      { target: "e.png", line: 3, image: true },
    ]);
  });

  it("makes GitHub's anchors from headings", () => {
    expect(slug("Many workspaces (OAuth install)")).toBe("many-workspaces-oauth-install");
    expect(slug("Settings in a `.env` file")).toBe("settings-in-a-env-file");
    expect(slug("Restarts, crashes and several instances")).toBe("restarts-crashes-and-several-instances");
    expect(slug("Where the service's spec is silent")).toBe("where-the-services-spec-is-silent");
    expect(slug("MEDIA_API_KEY and [tenants](x.md)")).toBe("media_api_key-and-tenants");
    expect(slug("Install (one paste) → done")).toBe("install-one-paste--done");
    expect([...anchorsOf("# Use\n```\n# not a heading\n```\n## Use\n### Use ##\n")]).toEqual([
      "use",
      "use-1",
      "use-2",
    ]);
  });

  it("reports a missing file, a missing anchor and a missing image", () => {
    const at = (target: string, image = false) => problem(FRONT_PAGE, { target, line: 1, image });
    expect(at("docs/nowhere.md")).toBe("docs/nowhere.md does not exist");
    expect(at("#no-such-heading")).toBe("no heading #no-such-heading in README.md");
    expect(at("docs/nowhere.png", true)).toBe("docs/nowhere.png does not exist");
    expect(at("package.json", true)).toBe("package.json is not an image");
    expect(at("../outside.md")).toBe("points outside the repository");
    expect(at("https://example.com/#anything")).toBeUndefined();
  });
});
