import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import type { InjectedInteraction } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * Photo-avatar design: the description is asked in a modal shown as the first response, the
 * job stops at two variants, and the buttons keep one, the other or both, once, for the requester
 * (or an admin) only.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

const hasButtons = (m: APIMessage) => JSON.stringify(m.components ?? []).includes('"custom_id"');

/** Runs /photo_avatar design, fills its modal and resolves with the job message showing the two variants. */
async function design(name: string): Promise<{ submitted: InjectedInteraction; variants: APIMessage }> {
  const command = await world.command({
    name: "photo_avatar",
    subcommand: "design",
    options: { name, portrait: true },
  });
  const shownModal = await world.firstResponse(command);
  const customId = (shownModal.data as { custom_id: string }).custom_id;
  const submitted = await world.fake.submitModal(customId, {
    gender: "female",
    age: "30s",
    ethnicity: "",
    outfit: "navy suit",
    background: "office",
  });
  const variants = await world.jobMessage(submitted, hasButtons);
  return { submitted, variants };
}

/** The job message once a variant was kept (green, no controls left). */
function kept(submitted: InjectedInteraction): Promise<APIMessage> {
  return world.jobMessage(submitted, (m) => m.embeds[0]?.color === 0x57f287);
}

const confirms = () => world.creations(/\/api\/avatar\/design\/confirm(-both)?$/).length;

describe("photo-avatar design", () => {
  it("opens its modal as the first response and sends the description typed there", async () => {
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Ava" },
    });
    const modal = await world.firstResponse(command);
    expect(world.fake.callbacks(command.id).map((c) => c.type)).toEqual([9]);
    const form = modal.data as { title: string; components: { label: string }[] };
    expect(form.title).toBe("Photo avatar design");
    expect(form.components.map((c) => c.label)).toEqual([
      "Gender",
      "Age",
      "Ethnicity",
      "Outfit",
      "Background",
    ]);

    const { variants } = await design("Bea");
    expect(variants.embeds.map((e) => e.title)).toEqual(["Photo avatar: Bea", "Variant 1", "Variant 2"]);
    const create = world.creations("/api/avatar/design/create")[0]!.json as { design: object };
    expect(create).toMatchObject({
      name: "Bea",
      design: { gender: "female", age: "30s", outfit: "navy suit", background: "office", isPortrait: true },
    });
    expect(create.design).not.toHaveProperty("ethnicity");
  });

  it("keeps variant 1, or variant 2, and shows the new avatar's id", async () => {
    for (const variant of ["1", "2"]) {
      const { submitted, variants } = await design(`Keep ${variant}`);
      await world.fake.clickButton(variants, world.controlId(variants, "confirm", variant));
      const done = await kept(submitted);
      expect(shown(done)).toContain("Avatar id");
      // The Keep buttons are gone; what is left leads on: a video with the new avatar.
      expect(JSON.stringify(done.components)).not.toContain(":confirm");
      expect(world.controlId(done, "avatar_video", "1")).toBeDefined();
      const last = world.creations(/\/confirm$/).at(-1);
      expect(last?.json).toMatchObject({ variant: Number(variant) });
    }
  });

  it("keeps both variants as two avatars", async () => {
    const { submitted, variants } = await design("Both");
    await world.fake.clickButton(variants, world.controlId(variants, "confirm_both"));
    const done = await kept(submitted);
    expect(shown(done)).toContain("Avatar 1 id");
    expect(shown(done)).toContain("Avatar 2 id");
    expect(world.creations(/\/confirm-both$/)).toHaveLength(1);
  });

  it("confirms once when Keep 1 and Keep both are clicked at the same moment", async () => {
    const { submitted, variants } = await design("Double");
    const before = confirms();
    const ephemerals = world.fake.messages().filter(isEphemeral).length;
    await Promise.all([
      world.fake.clickButton(variants, world.controlId(variants, "confirm", "1")),
      world.fake.clickButton(variants, world.controlId(variants, "confirm_both")),
    ]);
    await kept(submitted);
    const refusal = await world.until(() => world.fake.messages().filter(isEphemeral)[ephemerals]);
    expect(shown(refusal)).toMatch(/already|Nothing to do/);
    expect(confirms() - before).toBe(1);
  });

  it("refuses a click by another user, privately, and lets an admin choose", async () => {
    const { submitted, variants } = await design("Guarded");
    const before = confirms();
    const click = await world.fake.clickButton(
      variants,
      world.controlId(variants, "confirm", "1"),
      world.fake.users.other,
    );
    const refusal = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(refusal)).toBe(true);
    expect(shown(refusal)).toContain(
      `Only <@${world.fake.users.requester.id}>, who started this job, or an admin can use its buttons.`,
    );
    expect(confirms()).toBe(before);
    expect(hasButtons(world.fake.message(variants.id)!)).toBe(true);

    await world.fake.clickButton(variants, world.controlId(variants, "confirm", "2"), world.fake.users.admin);
    await kept(submitted);
    expect(confirms()).toBe(before + 1);
  });
});
