import { afterEach, describe, expect, it } from "vitest";
import type { MessageRef } from "../../../src/core/base/ports.js";
import { actor, CHANNEL, Harness, png, text } from "./harness.js";

/**
 * MEDIA_API_KEY serves only the tenants the operator names in MEDIA_API_KEY_TENANTS (or all, with
 * *), and tenants that share it see only what they made through the bot.
 */

const EMMA = "cm2yaz9j10008l0qg9npyjgs3";
const guild1 = actor();
const guild2 = actor({ tenantId: "guild-2", userId: "user-2" });

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("who may use the operator's key", () => {
  it("serves the listed tenants; another is told an admin must run setup, and spends nothing", async () => {
    h = await Harness.start({ apiKeyTenants: ["guild-1"] });
    await h.command("image.generate", { prompt: "a fox" }, { actor: guild2 });
    expect(h.lastEphemeral()).toMatchObject({ title: "Setup needed" });
    expect(text(h.lastEphemeral())).toContain("an admin must run the setup command");
    expect(h.emu.calls).toEqual([]);

    await h.command("usage", {}, { actor: guild1 });
    expect(h.emu.callsTo("GET", "/api/usage")).toHaveLength(1);
  });

  it("serves every server and workspace with *, but a person with their own install only by name", async () => {
    // A Discord user install: the person is their own tenant.
    const person = actor({ tenantId: "user-9", userId: "user-9" });
    h = await Harness.start({ apiKeyTenants: ["*"] });
    await h.command("usage", {}, { actor: guild2 });
    expect(h.emu.callsTo("GET", "/api/usage")).toHaveLength(1);

    await h.command("image.generate", { prompt: "a fox" }, { actor: person });
    expect(h.lastEphemeral()).toMatchObject({ title: "Setup needed" });
    expect(text(h.lastEphemeral())).toContain("In your DM with the bot, run /setup api_key:True");
    expect(h.emu.callsTo("POST", /./)).toEqual([]);
    await h.close();

    h = await Harness.start({ apiKeyTenants: ["*", "user-9"] });
    await h.command("usage", {}, { actor: person });
    expect(h.emu.callsTo("GET", "/api/usage")).toHaveLength(1);
  });
});

describe("tenants sharing the operator's key", () => {
  /** The ids the finished job's record names (its result's). */
  const resultOf = async (ref: MessageRef) => {
    const card = await h!.finished(ref);
    const job = await h!.stores.jobs.get(card.footer!.replace("Job ", ""));
    return job!.result as { videoId?: string; avatarIds?: string[] };
  };
  const video = async (who: typeof guild1, script: string) =>
    (await resultOf(await h!.startJob("video.avatar", { avatar: EMMA, script }, { actor: who }))).videoId!;

  it("list and fetch only what they made through the bot; stock avatars stay for everyone", async () => {
    h = await Harness.start({ apiKeyTenants: ["*"] });
    const mine = await video(guild1, "Hello from guild one");
    const theirs = await video(guild2, "Hello from guild two");
    const selfie = await h.startJob(
      "photo_avatar.selfie",
      { name: "Their face" },
      { actor: guild2, attachments: { photo: [png("face.png")] } },
    );
    const [theirAvatar] = (await resultOf(selfie)).avatarIds!;

    await h.command("video.list", {}, { actor: guild1 });
    const listed = text(h.chat.lastCard());
    expect(listed).toContain(mine);
    expect(listed).not.toContain(theirs);

    const gets = h.emu.callsTo("GET", /^\/api\/video\/[^/]+$/).length;
    await h.command("video.get", { video_id: theirs }, { actor: guild1 });
    expect(h.lastEphemeral().title).toBe("Not found");
    expect(h.emu.callsTo("GET", /^\/api\/video\/[^/]+$/)).toHaveLength(gets);

    await h.command("avatars", {}, { actor: guild1 });
    expect(text(h.chat.lastCard())).toContain(EMMA);
    expect(text(h.chat.lastCard())).not.toContain(theirAvatar);
    const choices = await h.bot.handleAutocomplete({
      command: "video.avatar",
      option: "avatar",
      query: "",
      actor: guild1,
      conversation: CHANNEL,
    });
    expect(choices.map((c) => c.value)).not.toContain(theirAvatar);
    // Nor can it be typed by hand.
    await h.command("video.avatar", { avatar: theirAvatar, script: "hi" }, { actor: guild1 });
    expect(h.lastEphemeral().title).toBe("Check the command");

    await h.command("avatars", {}, { actor: guild2 });
    expect(text(h.chat.lastCard())).toContain(theirAvatar);
  });

  it("still get their results that the service's lists hand over (mockup assets, thumbnails)", async () => {
    h = await Harness.start({ apiKeyTenants: ["*"] });
    const asset = await h.startJob("mockup.asset", { prompt: "a fox logo", type: "logo" }, { actor: guild1 });
    expect((await h.finished(asset)).tone).toBe("success");
    const thumbnail = await h.startJob("thumbnail.generate", { prompt: "a fox at dawn" }, { actor: guild1 });
    expect((await h.finished(thumbnail)).tone).toBe("success");

    await h.command("mockup.assets", {}, { actor: guild1 });
    expect(text(h.chat.lastCard())).toContain("a fox logo");
    await h.command("mockup.assets", {}, { actor: guild2 });
    expect(text(h.chat.lastCard())).not.toContain("a fox logo");
    await h.command("thumbnail.list", {}, { actor: guild2 });
    expect(text(h.chat.lastCard())).toContain("No thumbnails here");
  });
});
