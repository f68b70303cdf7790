import { describe, expect, it } from "vitest";
import type { Card } from "../../../src/core/base/cards.js";
import { homeCards, type PanelView, panelCard } from "../../../src/core/render/settings.js";

/** The settings panel's cards: whose each default is, one section with tabs, or the whole home. */

const choices = (...values: string[]) => values.map((value) => ({ label: value, value }));

function view(overrides: Partial<PanelView> = {}): PanelView {
  return {
    platform: "discord",
    section: "defaults",
    admin: false,
    defaults: [
      {
        option: "aspect_ratio",
        label: "Aspect ratio",
        value: "16:9",
        from: "yours",
        choices: choices("1:1", "16:9"),
      },
      { option: "style", label: "Style", from: "service", choices: choices("luxury_macro") },
      {
        option: "resolution",
        label: "Resolution",
        value: "720p",
        from: "server",
        choices: choices("480p", "720p"),
      },
      { option: "duration", label: "Duration", value: 8, from: "yours", choices: choices("5", "8") },
      { option: "negative_prompt", label: "Negative prompt", value: "blur", from: "server" },
      {
        option: "avatar",
        label: "Avatar",
        value: "a1",
        shown: "Ada",
        from: "yours",
        choices: [{ label: "Bo", value: "a2" }],
      },
      { option: "voice", label: "Voice", from: "service" },
      {
        option: "full_body",
        label: "Full body",
        value: true,
        from: "yours",
        choices: choices("true", "false"),
      },
      { option: "delivery", label: "Delivery", from: "service", choices: choices("public", "private") },
    ],
    serverDefaults: [
      {
        option: "resolution",
        label: "Resolution",
        value: "720p",
        from: "server",
        choices: choices("480p", "720p"),
      },
      { option: "negative_prompt", label: "Negative prompt", value: "blur", from: "server" },
    ],
    presets: [{ id: "17", name: "wide", values: { aspect_ratio: "16:9", full_body: true } }],
    serverPresets: [{ id: "18", name: "house", values: { style: "luxury_macro" } }],
    running: [{ id: "J0", title: "Image: a fox", state: "working", progress: 40, age: "1 min" }],
    results: [
      {
        id: "J1",
        title: "Image: a cat",
        state: "done",
        progress: 100,
        age: "5 min",
        url: "https://x.test/m/1",
      },
    ],
    latest: {
      id: "J1",
      title: "Image: a cat",
      controls: [{ type: "button", action: "edit", jobId: "J1", label: "Edit", style: "secondary" }],
    },
    spending: { credits: 3.5, jobs: 2, budgets: [] },
    privateResults: "allowed",
    home: false,
    ...overrides,
  };
}

const selects = (card: Card) => card.selects ?? [];
const labels = (card: Card) => card.actions.map((a) => a.label);

describe("the settings panel as a message", () => {
  it("shows a select per default of the section, chosen where the value is the person's own", () => {
    const card = panelCard(view());
    expect(card.title).toBe("Your defaults: shape and style");
    expect(selects(card).map((s) => [s.jobId, s.selected, s.placeholder])).toEqual([
      ["aspect_ratio", "16:9", "Aspect ratio"],
      ["style", undefined, "Style: not set (the service decides)"],
      ["resolution", undefined, "Resolution: 720p, the server's"],
      ["duration", "8", "Duration"],
    ]);
    // Every select ends with Clear, which removes the person's own value.
    expect(selects(card).every((s) => s.options.at(-1)?.value === "-")).toBe(true);
    expect(card.fields).toEqual([{ name: "Negative prompt", value: "blur, the server's", inline: true }]);
  });

  it("offers tabs to the other sections, the server's only to admins", () => {
    expect(labels(panelCard(view()))).toEqual([
      "Avatar & delivery",
      "Presets",
      "Jobs & spending",
      "Negative prompt…",
    ]);
    expect(labels(panelCard(view({ admin: true, section: "presets" })))).toEqual([
      "Shape & style",
      "Avatar & delivery",
      "Jobs & spending",
      "Server defaults",
      "Delete wide",
    ]);
  });

  it("keeps a chosen entry that is not among the list's first entries (an avatar further down)", () => {
    const avatar = selects(panelCard(view({ section: "video" }))).find((s) => s.jobId === "avatar")!;
    expect(avatar.selected).toBe("a1");
    expect(avatar.options.map((o) => o.label)).toEqual([
      "Ada",
      "Bo",
      "Clear (the server's or the service's)",
    ]);
    expect(avatar.search).toBeUndefined();
    // A list longer than a select holds is searched by the settings command's autocomplete.
    const long = view({ section: "video" });
    long.defaults = long.defaults.map((d) => (d.option === "avatar" ? { ...d, searchable: true } : d));
    expect(selects(panelCard(long)).find((s) => s.jobId === "avatar")?.search).toEqual({
      command: "settings",
      option: "avatar",
    });
  });

  it("lists presets with their values, and Delete names the person's own by id", () => {
    const card = panelCard(view({ section: "presets" }));
    expect(card.lines.join("\n")).toContain("wide: aspect ratio 16:9, full body yes");
    expect(card.lines.join("\n")).toContain("The server's:\nhouse: style luxury_macro");
    expect(card.actions.find((a) => a.action === "delete_preset")).toMatchObject({
      jobId: "mine",
      value: "17",
    });
  });

  it("shows running jobs with progress, results with links, spending and the newest result's follow-ups", () => {
    const card = panelCard(view({ section: "activity" }));
    expect(card.lines[0]).toContain("Image: a fox · Working ▰▰▰▰▱▱▱▱▱▱ 40% · started 1 min ago");
    // The results end the card, right above the buttons that act on the newest.
    expect(card.fields[0]).toEqual({ name: "Your spending this period", value: "3.5 credits, 2 jobs" });
    expect(card.fields.at(-1)).toMatchObject({ name: "Image: a cat", link: { url: "https://x.test/m/1" } });
    expect(labels(card)).toContain("Edit");
    expect(card.lines).toContain("The buttons below act on your newest result, Image: a cat.");
  });

  it("lists the result its buttons act on last, right above them, whatever came after it", () => {
    const result = (id: string, title: string, state: "done" | "failed", age: string) => ({
      id,
      title,
      state,
      progress: state === "done" ? 100 : null,
      age,
    });
    // Newest first, as the store lists them: a failed job came after the newest result.
    const results = [
      result("J4", "Video: waves", "failed", "1 min"),
      result("J1", "Image: a test.", "done", "5 min"),
      result("J2", "Image: a dog", "done", "10 min"),
    ];
    const latest = { id: "J1", title: "Image: a test.", controls: view().latest!.controls };
    for (const card of [
      panelCard(view({ section: "activity", results, latest })),
      homeCards(view({ results, latest }))[0]!,
    ]) {
      expect(card.fields.map((f) => f.name)).toEqual([
        "Your spending this period",
        "Image: a dog",
        "Video: waves",
        "Image: a test.",
      ]);
      expect(card.actions.at(-1)).toMatchObject({ action: "edit", jobId: "J1" });
      expect(card.lines).toContain("The buttons below act on your newest result, Image: a test.");
    }
  });

  it("says what changed on top, and points to the home where the platform has one", () => {
    const card = panelCard(view({ notice: { tone: "success", text: "Saved." }, home: true }));
    expect(card.tone).toBe("success");
    expect(card.lines[0]).toBe("Saved.");
    expect(card.lines.at(-1)).toContain("Home tab");
  });
});

describe("the settings panel as a home", () => {
  it("shows every section, jobs first, with the newest result's follow-ups and no tabs", () => {
    const cards = homeCards(view());
    expect(cards.map((c) => c.title)).toEqual([
      "Your jobs",
      "Your defaults: shape and style",
      "Your defaults: avatar and delivery",
      "Presets",
    ]);
    expect(cards.flatMap((c) => c.actions).map((a) => a.action)).not.toContain("panel");
    expect(cards[0]!.actions.map((a) => a.label)).toEqual(["Edit"]);
    expect(homeCards(view({ admin: true })).at(-1)?.title).toBe("The server's defaults");
  });

  it("speaks of the workspace on Slack, and shows its command as typed there", () => {
    const slack = view({ platform: "slack", admin: true });
    const cards = homeCards(slack);
    const server = cards.at(-1)!;
    expect(server.title).toBe("The workspace's defaults");
    expect(server.footer).toBe(
      "Set the others with settings --scope server, e.g. settings --scope server --duration 8.",
    );
    expect(JSON.stringify(cards)).not.toMatch(/server's|scope:/);
    expect(JSON.stringify(cards)).toContain("Resolution: 720p, the workspace's");
    expect(labels(panelCard({ ...slack, section: "presets" }))).toContain("Workspace defaults");
    // Discord's own words and syntax stay Discord's.
    expect(homeCards(view({ admin: true })).at(-1)?.footer).toBe(
      "Set the others with settings scope:server, e.g. settings scope:server duration:8.",
    );
  });

  it("says what changed on the section the change was in", () => {
    const cards = homeCards(view({ section: "video", notice: { tone: "success", text: "Saved." } }));
    expect(cards.find((c) => c.lines[0] === "Saved.")?.title).toBe("Your defaults: avatar and delivery");
  });
});
