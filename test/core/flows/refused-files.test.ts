import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type CardMedia, card } from "../../../src/core/base/cards.js";
import { withoutFiles } from "../../../src/core/flows/refused-files.js";

const file = { name: "x.png", contentType: "image/png", open: async () => Readable.from([]) };
const reason = "Slack refused the file: this workspace takes no uploads from apps.";

function refused(media: CardMedia) {
  const shown = withoutFiles(card("A result", "success", { media: [media] }), reason);
  return { line: shown.lines.at(-1), links: shown.links, media: shown.media };
}

describe("a file the platform refuses for good", () => {
  it("becomes its download link when the service gave one, and the line says to use it", () => {
    const { line, links, media } = refused({
      kind: "video",
      name: "v",
      file,
      url: "https://cdn.example/v.mp4",
    });
    expect(line).toBe(`${reason} It is not attached: use the download link instead (valid for about a day).`);
    expect(links).toEqual([{ label: "Download the video", url: "https://cdn.example/v.mp4" }]);
    expect(media).toEqual([{ kind: "video", name: "v", url: "https://cdn.example/v.mp4" }]);
  });

  it("without a link, says a result of the service stays in its account", () => {
    const { line, media } = refused({ kind: "image", name: "i", file });
    expect(line).toBe(`${reason} It is not attached; it is saved in the media service account.`);
    expect(media).toEqual([]);
  });

  it("never says the usage chart the bot drew is saved anywhere", () => {
    const { line } = refused({ kind: "image", name: "usage.png", file, drawn: true });
    expect(line).toBe(`${reason} It is not attached.`);
  });

  it("nor an export the bot wrote", () => {
    const { line } = refused({ kind: "file", name: "spending-2026-11.csv", file });
    expect(line).toBe(`${reason} It is not attached.`);
  });
});
