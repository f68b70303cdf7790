import { afterEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/core/base/cards.js";
import { ageOf } from "../../../src/core/commands/jobs.js";
import { actor, admin, Harness } from "../bot/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("jobs --all, for admins", () => {
  it("lists everyone's jobs of the server, running first, with state, requester, age and a link", async () => {
    // Two servers on the operator's key, so that the other server's job exists at all.
    h = await Harness.start({ apiKeyTenants: ["*"] });
    const ada = actor({ userId: "ada" });
    const bob = actor({ userId: "bob" });
    const done = await h.startJob("image.generate", { prompt: "a finished fox" }, { actor: ada });
    await h.finished(done);
    h.emu.planNextJob("video", { durationMs: 60_000 });
    const running = await h.startJob(
      "video.avatar",
      { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "still going" },
      { actor: bob },
    );
    // Another server's job is not shown.
    await h.startJob("image.generate", { prompt: "elsewhere" }, { actor: actor({ tenantId: "guild-2" }) });

    await h.command("jobs", { all: true }, { actor: admin() });
    const shown = h.lastEphemeral();
    expect(shown.title).toBe("Everyone's jobs");
    expect(shown.lines).toHaveLength(2);
    const [first, second] = shown.lines;
    expect(plainText(first!)).toMatch(
      /^Avatar video: still going · (Queued|Working).* · @bob · 0 min ago · job [\w-]+/,
    );
    expect(plainText(first!)).toContain(
      `https://chat.invalid/guild-1/${running.channelId}/${running.messageId}`,
    );
    expect(plainText(second!)).toMatch(/^Image: a finished fox · Done · @ada · 0 min ago/);
    expect(shown.footer).toMatch(/^1 running\./);
  });

  it("is refused to members who are not admins, and the member's own list still works", async () => {
    h = await Harness.start();
    await h.command("jobs", { all: true });
    expect(plainText(h.lastEphemeral().lines[0]!)).toBe("Only admins can see everyone's jobs.");
    await h.command("jobs", {});
    expect(h.lastEphemeral().title).toBe("Your jobs");
  });
});

describe("ageOf", () => {
  it("says minutes, then hours, then days", () => {
    const now = Date.UTC(2026, 0, 10);
    expect(ageOf(now - 5 * 60_000, now)).toBe("5 min");
    expect(ageOf(now - 3 * 3_600_000, now)).toBe("3 h");
    expect(ageOf(now - 3 * 86_400_000, now)).toBe("3 d");
  });
});
