import { describe, expect, expectTypeOf, it } from "vitest";
import { ACTIONS, type ActionName, actionButton, actionByName } from "../../../src/core/actions/catalogue.js";
import { type CardAction, isCard } from "../../../src/core/base/cards.js";
import type { PlacedAction } from "../../../src/core/render/controls.js";
import { encodeControlId } from "../../../src/discord/custom-id.js";
import { encodeActionId } from "../../../src/slack/render/action-id.js";
import { admin, file, type Harness, harnessPerFile, png } from "../bot/harness.js";

/**
 * Every control a card carries names an action of the catalogue, and every action fits the
 * adapters' control ids: a control spelled by hand, or renamed on one side only, fails here
 * instead of answering "older version of the bot" to the person who clicks it.
 */

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

/** Every control of every card the bot posted or edited so far (its selects name actions too). */
function controlsShown(): Pick<CardAction, "action">[] {
  return [...h.chat.posts, ...h.chat.edits].flatMap((m) =>
    isCard(m.message) ? [...m.message.actions, ...(m.message.selects ?? [])] : [],
  );
}

describe("the action catalogue", () => {
  it("has unique names that fit Discord's custom_id and Slack's action_id", () => {
    const names = ACTIONS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(() => encodeControlId({ action: name, jobId: "AbCdEf123456", value: "1" })).not.toThrow();
      expect(() => encodeActionId({ action: name, jobId: "AbCdEf123456", value: "1" })).not.toThrow();
    }
  });

  it("registers every control the results of every kind and the lists show", async () => {
    const finish = async (...args: Parameters<Harness["startJob"]>) => h.finished(await h.startJob(...args));
    await finish("image.generate", { prompt: "a fox", seed: 3, aspect_ratio: "16:9" });
    await finish("thumbnail.generate", { prompt: "a title card" });
    await finish("video.cinematic", { prompt: "a drone shot" });
    await finish(
      "mockup.generate",
      { instruction: "logo on the mug" },
      { attachments: { product: [png()] } },
    );
    await finish("mockup.asset", { prompt: "a white mug", type: "product" });
    await finish(
      "video.avatar",
      { avatar: "cm2yaz9j10008l0qg9npyjgs3" },
      { attachments: { audio: [file("speech.mp3", "audio/mpeg", 3000)] } },
    );
    const design = await h.startJob("photo_avatar.design", { name: "Ada", gender: "female" });
    await h.shows(design, (card) => card.actions.length > 0);
    await h.click(design, "confirm", "1");
    await h.finished(design);
    // The lists' controls: Show on a thumbnail, and a second page of jobs.
    await h.command("thumbnail.list");
    for (let i = 0; i < 5; i += 1) await finish("image.generate", { prompt: `fox ${i}` });
    await h.command("jobs");
    // The settings panel's controls: its tabs, selects, form and presets' Delete; admins' server defaults.
    await h.stores.preferences.update(
      { platform: "discord", tenantId: "guild-1", userId: "admin-1" },
      (p) => ({
        ...p,
        presets: [{ name: "wide", values: { aspect_ratio: "16:9" }, from: null, createdAt: 1 }],
      }),
    );
    await h.command("settings", {}, { actor: admin() });
    await h.command("settings", { scope: "server" }, { actor: admin() });
    await h.command("settings", { clear: "all" }, { actor: admin() });
    const panel = h.chat.posts.at(-1)!;
    await h.bot.handleAction({
      action: "panel",
      jobId: "settings",
      value: "presets",
      actor: admin(),
      conversation: { ...panel.target, data: { ...panel.target.data, clicked: panel.ref.messageId } },
      message: panel.ref,
    });

    const shown = controlsShown();
    const names = new Set(shown.map((c) => c.action));
    for (const name of names) expect(actionByName(name), name).toBeDefined();
    // Every action is shown under at least one of these results or lists.
    for (const def of ACTIONS) expect(names.has(def.name), def.name).toBe(true);
  });

  it("builds buttons only for registered names", () => {
    expectTypeOf(actionButton).parameter(0).toEqualTypeOf<(typeof ACTIONS)[number]["name"]>();
    // @ts-expect-error: not an action of the catalogue
    actionButton("animate", "job", "Animate");
    // The renderers' own controls (render/controls.ts) name actions of the catalogue too.
    expectTypeOf<PlacedAction>().toExtend<ActionName>();
  });
});
