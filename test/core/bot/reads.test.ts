import { describe, expect, it } from "vitest";
import { actor, CHANNEL, type Harness, harnessPerFile, text } from "./harness.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

describe("read-only commands answer privately", () => {
  it("usage: credits bar, per-type quotas, reset date", async () => {
    h.emu.account("test-key").creditsUsed = 250;
    await h.command("usage");
    const card = h.lastEphemeral();
    expect(card.title).toBe("Media service usage");
    expect(text(card)).toContain("Credits used: ▰▰▰▱▱▱▱▱▱▱ 25% (250 of 1000)");
    expect(text(card)).toContain("Images: 0 used (no limit)");
    expect(text(card)).toContain("Avatar videos: 0 of 50");
    expect(text(card)).toMatch(/Resets on: \d{4}-\d{2}-01/);
  });

  it("avatars and voices: paged lists with ids, filtered by a search", async () => {
    await h.command("avatars");
    const avatars = h.lastEphemeral();
    expect(avatars.fields.map((f) => f.name)).toEqual(["Emma", "James", "Sofia"]);
    expect(avatars.fields[0]?.value).toBe("id cm2yaz9j10008l0qg9npyjgs3 · voice 1");
    expect(avatars.footer).toBe("Page 1 of 1, 3 in all.");

    await h.command("voices", { search: "mi" });
    expect(h.lastEphemeral().fields).toEqual([{ name: "Mia", value: "id 3" }]);

    await h.command("voices", { search: "nobody" });
    expect(h.lastEphemeral().lines).toEqual(['Nothing matches "nobody".']);
  });

  it("empty lists say how to fill them", async () => {
    await h.command("mockup.list");
    expect(h.lastEphemeral().lines).toEqual(["No mockups yet: make one with mockup generate."]);
    await h.command("jobs", {}, { actor: actor({ userId: "newcomer" }) });
    expect(h.lastEphemeral().lines).toEqual(["You have no jobs yet."]);
  });

  it("help lists every group, or one group's commands", async () => {
    await h.command("help");
    const all = h.lastEphemeral();
    // One field per group (Discord holds 25 fields), its commands in the value.
    expect(all.fields.find((f) => f.name === "image")?.value).toContain("image generate <prompt>");
    expect(all.fields.map((f) => f.name)).toContain("setup");
    await h.command("help", { topic: "mockup" });
    expect(h.lastEphemeral().fields.map((f) => f.name)).toEqual([
      "mockup generate <instruction>",
      "mockup video <prompt>",
      "mockup asset <prompt>",
      "mockup asset_edit <prompt>",
      "mockup list <search>",
      "mockup assets <search>",
      "mockup videos <search>",
    ]);
    expect(h.emu.calls).toEqual([]);
  });
});

describe("autocomplete", () => {
  const ask = (command: string, option: string, query: string) =>
    h.bot.handleAutocomplete({ command, option, query, actor: actor(), conversation: CHANNEL });

  it("offers matching avatars and voices from a short-lived cache", async () => {
    expect(await ask("video.avatar", "avatar", "so")).toEqual([
      { label: "Sofia · cm2yb1p8e000cl0qg5t9r4kxm", value: "cm2yb1p8e000cl0qg5t9r4kxm" },
    ]);
    expect((await ask("video.avatar", "avatar", "")).length).toBe(3);
    expect(await ask("video.avatar", "voice", "no")).toEqual([{ label: "Noah · 2", value: "2" }]);
    await ask("video.avatar", "avatar", "e");
    expect(h.emu.callsTo("GET", "/api/avatars")).toHaveLength(1);
  });

  it("answers nothing for options without a list", async () => {
    expect(await ask("image.generate", "prompt", "a")).toEqual([]);
    expect(await ask("nope", "x", "a")).toEqual([]);
  });
});
