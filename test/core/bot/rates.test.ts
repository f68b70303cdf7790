import { afterEach, describe, expect, it } from "vitest";
import { actor, CHANNEL, Harness, text } from "./harness.js";

/** Per-person and per-tenant command rates: past them, "slow down, try again in N s". */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("command rates", () => {
  it("refuses a person past their rate, says when to try again, and leaves others alone", async () => {
    h = await Harness.start({ rates: { userPerMinute: 3, tenantPerMinute: 100 } });
    for (let n = 0; n < 3; n++) {
      await h.command("help");
      expect(h.chat.lastCard().title).toBe("Help: media bot commands");
    }
    await h.command("help");
    expect(h.lastEphemeral().title).toBe("Slow down");
    // Three a minute: the next one is 20 s away.
    expect(text(h.lastEphemeral())).toContain("you sent a lot of commands just now. Try again in 20 s.");

    await h.command("help", {}, { actor: actor({ userId: "user-2" }) });
    expect(h.chat.lastCard().title).toBe("Help: media bot commands");
  });

  it("counts clicks, but not autocomplete keystrokes", async () => {
    h = await Harness.start({ rates: { userPerMinute: 2, tenantPerMinute: 100 } });
    for (let n = 0; n < 10; n++) {
      await h.bot.handleAutocomplete({
        command: "video.avatar",
        option: "avatar",
        query: "s".repeat(n),
        actor: actor(),
        conversation: CHANNEL,
      });
    }
    await h.command("help");
    const message = await h.startJob("image.generate", { prompt: "a fox" });
    await h.finished(message);
    await h.click(message, "regenerate");
    expect(h.lastEphemeral().title).toBe("Slow down");
    expect(h.creations("/api/image/generate")).toHaveLength(1);
  });

  it("refuses a tenant past its rate, whoever sends", async () => {
    h = await Harness.start({ rates: { userPerMinute: 100, tenantPerMinute: 4 } });
    for (let n = 0; n < 4; n++) await h.command("help", {}, { actor: actor({ userId: `user-${n}` }) });
    await h.command("help", {}, { actor: actor({ userId: "user-9" }) });
    expect(text(h.lastEphemeral())).toContain(
      "this server or workspace sent a lot of commands just now. Try again in 15 s.",
    );
    // Another tenant has its own share.
    await h.command("help", {}, { actor: actor({ tenantId: "guild-2" }) });
    expect(h.chat.lastCard().title).toBe("Help: media bot commands");
  });
});
