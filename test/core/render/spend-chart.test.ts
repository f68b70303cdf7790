import { inflateSync } from "node:zlib";
import { Resvg } from "@resvg/resvg-js";
import { describe, expect, it } from "vitest";
import {
  CHART_HEIGHT,
  CHART_WIDTH,
  dayLabel,
  fileFromBuffer,
  spendChartPng,
  spendChartSvg,
} from "../../../src/core/render/spend-chart.js";
import type { SpendReport } from "../../../src/core/spend/data/model.js";
import { decodePng, pixelAt } from "../../fakes/media-api/png.js";
import { LocalTool } from "../../local-tools.js";

/** The chart writes its words in the system's fonts (DejaVu Sans where there, as in the image). */
const chartFonts = new LocalTool({
  name: "fonts for the chart",
  hint: "install a font: apt-get install fonts-dejavu-core (Debian/Ubuntu); macOS has its own",
  requiredBy: "REQUIRE_FONTS",
  probe: () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">' +
      '<text x="2" y="15" font-family="sans-serif" font-size="14">Ag</text></svg>';
    const { pixels } = new Resvg(svg, { font: { loadSystemFonts: true }, logLevel: "off" }).render();
    return pixels.some((value, i) => i % 4 === 3 && value > 0);
  },
});

const daysByKind = [
  { day: "2026-03-01", kind: "image", credits: 12 },
  { day: "2026-03-01", kind: "avatar_video", credits: 40 },
  { day: "2026-03-03", kind: "cinematic", credits: 25 },
  { day: "2026-03-03", kind: "image", credits: 3 },
  { day: "2026-03-04", kind: "mockup_video", credits: 8 },
];

function report(overrides: Partial<SpendReport> = {}): SpendReport {
  return {
    resetsOn: "2026-04-01T00:00:00Z",
    since: "2026-03-01",
    scope: "everyone",
    viewerId: "U1",
    totals: { credits: 88, jobs: 9, outside: 0 },
    people: [{ key: "U1", credits: 88, jobs: 9 }],
    kinds: [
      { key: "avatar_video", credits: 40, jobs: 2 },
      { key: "cinematic", credits: 25, jobs: 1 },
      { key: "image", credits: 15, jobs: 5 },
      { key: "mockup_video", credits: 8, jobs: 1 },
    ],
    days: ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"].map((key) => ({
      key,
      credits: 0,
      jobs: 0,
    })),
    daysByKind,
    budgets: [],
    ...overrides,
  };
}

/** The PNG's chunks, checked for order and type; enough of a decoder to trust the image opens. */
function readPng(png: Buffer) {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    chunks.push({
      type: png.toString("latin1", at + 4, at + 8),
      data: png.subarray(at + 8, at + 8 + length),
    });
    at += 12 + length;
  }
  expect(chunks[0]!.type).toBe("IHDR");
  expect(chunks.at(-1)!.type).toBe("IEND");
  const ihdr = chunks[0]!.data;
  const header = {
    width: ihdr.readUInt32BE(0),
    height: ihdr.readUInt32BE(4),
    bitDepth: ihdr[8]!,
    colourType: ihdr[9]!,
  };
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data)));
  return { ...header, raw };
}

/** Each bar's aria-label ("day: Mar 1; Credits: 12; kind: Images") and its height in pixels. */
function bars(svg: string) {
  return [
    ...svg.matchAll(
      /<path aria-label="day: ([^;"]+); Credits: ([\d.]+); kind: ([^"]+)"[^>]*d="M[^h]*h[^v]*v([\d.]+)/g,
    ),
  ].map(([, day, credits, kind, height]) => ({
    day,
    credits: Number(credits),
    kind,
    height: Number(height),
  }));
}

describe("spending chart", () => {
  it("is a real PNG of the spec's size, on a white background", async () => {
    const png = (await spendChartPng(report()))!;
    const { width, height, bitDepth, colourType, raw } = readPng(png);
    expect({ width, height }).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
    expect({ bitDepth, colourType }).toEqual({ bitDepth: 8, colourType: 6 });
    // Every row: a filter byte, then RGBA pixels.
    expect(raw.length).toBe(height * (1 + width * 4));
    // The first pixel reads the same whatever the row's filter: the background.
    expect([...raw.subarray(1, 5)]).toEqual([255, 255, 255, 255]);
  });

  chartFonts.it("writes its title in letters one can read, not only in the SVG", async () => {
    const png = decodePng((await spendChartPng(report()))!);
    // The title's band, above the bars: vega writes text in black, the axes and bars are lighter.
    let ink = 0;
    for (let y = 0; y < 40; y++)
      for (let x = 0; x < png.width; x++) if (pixelAt(png, x, y).every((v) => v < 80)) ink++;
    expect(ink).toBeGreaterThan(200);
  });

  it("draws every day of the period, each kind by its name, and bars as tall as their credits", async () => {
    const svg = (await spendChartSvg(report()))!;
    for (const label of ["Mar 1", "Mar 2", "Mar 3", "Mar 4"]) expect(svg).toContain(`>${label}</text>`);
    for (const name of ["Avatar videos", "Cinematic videos", "Images", "Mockup videos"])
      expect(svg).toContain(`>${name}</text>`);
    expect(svg).toContain(">Credits per day, 2026-03-01 to 2026-03-04</text>");
    expect(svg).toContain(">This period resets on 2026-04-01</text>");

    const drawn = bars(svg);
    expect(
      drawn.map(({ day, credits, kind }) => ({ day, credits, kind })).sort((a, b) => a.credits - b.credits),
    ).toEqual([
      { day: "Mar 3", credits: 3, kind: "Images" },
      { day: "Mar 4", credits: 8, kind: "Mockup videos" },
      { day: "Mar 1", credits: 12, kind: "Images" },
      { day: "Mar 3", credits: 25, kind: "Cinematic videos" },
      { day: "Mar 1", credits: 40, kind: "Avatar videos" },
    ]);
    const perCredit = drawn[0]!.height / drawn[0]!.credits;
    for (const bar of drawn) expect(bar.height / bar.credits).toBeCloseTo(perCredit, 5);
  });

  it("says it is the viewer's own for a member", async () => {
    const svg = (await spendChartSvg(report({ scope: "own" })))!;
    expect(svg).toContain(">Your credits per day, 2026-03-01 to 2026-03-04</text>");
  });

  it("has no chart when no day has spending", async () => {
    expect(await spendChartPng(report({ daysByKind: [], days: [] }))).toBeUndefined();
    const zero = daysByKind.map((d) => ({ ...d, credits: 0 }));
    expect(await spendChartPng(report({ daysByKind: zero }))).toBeUndefined();
  });

  it("labels days as people read them", () => {
    expect(dayLabel("2026-03-04")).toBe("Mar 4");
    expect(dayLabel("2026-12-31")).toBe("Dec 31");
    expect(dayLabel("someday")).toBe("someday");
  });

  it("gives the bytes as a file the adapters can upload, with its size", async () => {
    const bytes = Buffer.from("a,b\r\n");
    const file = fileFromBuffer("spending.csv", "text/csv", bytes);
    expect(file).toMatchObject({ name: "spending.csv", contentType: "text/csv", size: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of await file.open()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(bytes);
  });
});
