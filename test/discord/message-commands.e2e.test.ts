import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { decodeControlId } from "../../src/discord/custom-id.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * Images already in the channel as inputs: Apps > "Edit image", "Animate image" and "Use as
 * thumbnail reference" on a message open the follow-up's form as the first response; its
 * submission uploads the message's image through the normal flow, or, on one of the bot's own
 * results, hands the service the result's media id and uploads nothing.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

interface ModalData {
  custom_id: string;
  title: string;
  components: { component: { custom_id: string } }[];
}

const uploads = () => world.emu.callsTo("POST", "/api/media/initialize");

/** Uses the message command `name` on `message` as `user` and resolves with the modal shown. */
async function open(message: APIMessage, name: string, user = world.fake.users.other) {
  const used = await world.fake.useMessageCommand({ name, message, user });
  const response = await world.firstResponse(used);
  expect(response.type).toBe(9);
  return response.data as ModalData;
}

const inputs = (modal: ModalData) => modal.components.map((c) => c.component.custom_id);

async function submit(modal: ModalData, fields: Record<string, string | string[]>): Promise<APIMessage> {
  return world.jobMessage(await world.fake.submitModal(modal.custom_id, fields));
}

describe("message commands", () => {
  it("are registered with the slash commands, under Apps on messages", () => {
    const registered = world.fake
      .commands(world.fake.guild.id)
      .filter((c) => c.type === 3)
      .map((c) => c.name);
    expect(registered).toEqual(["Edit image", "Animate image", "Use as thumbnail reference"]);
  });

  it("Edit image on a member's attached picture uploads it and edits it with the form's prompt", async () => {
    const picture = world.png("cat.png", [10, 120, 200]);
    const posted = world.fake.postAsUser({ user: world.fake.users.requester, files: [picture] });
    const before = uploads().length;

    const modal = await open(posted, "Edit image");
    expect(modal.title).toBe("Edit image");
    expect(inputs(modal)).toEqual(["prompt"]);
    const message = await submit(modal, { prompt: "give the cat a hat" });

    expect(
      uploads()
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ fileName: "cat.png", contentType: "image/png", fileSize: picture.data.length }]);
    const edit = world.creations("/api/image/edit").at(-1)?.json as { referenceImageMediaId: string };
    expect(edit).toEqual({
      prompt: "give the cat a hat",
      name: "give the cat a hat",
      referenceImageMediaId: expect.any(String),
    });
    expect(world.emu.media(edit.referenceImageMediaId)).toMatchObject({
      receivedBytes: picture.data.length,
      finalized: true,
    });
    // The job is the one who used the menu.
    expect(shown(message)).toContain("Image: give the cat a hat");
    const notice = await world.until(() => world.notices(world.fake.users.other.id).at(-1));
    expect(shown(notice)).toContain("give the cat a hat");
  });

  it("Animate image on one of the bot's own results starts from its media id, uploading nothing", async () => {
    const result = await world.jobMessage(
      await world.command({ name: "image", subcommand: "generate", options: { prompt: "a lighthouse" } }),
    );
    const [, customId] = JSON.stringify(result.components).match(/"custom_id":"([^"]+)"/) ?? [];
    const job = await world.stores.jobs.get(decodeControlId(customId!)!.jobId);
    const { mediaId } = job!.result as { mediaId: string };
    const before = uploads().length;

    const modal = await open(result, "Animate image");
    expect(inputs(modal)).toEqual(["prompt", "duration", "aspect_ratio", "resolution"]);
    const video = await submit(modal, { prompt: "the beam sweeps", duration: "4", aspect_ratio: ["16:9"] });

    expect(world.creations("/api/video/cinematic/create").at(-1)?.json).toEqual({
      name: "the beam sweeps",
      prompt: "the beam sweeps",
      firstFrameImageMediaId: mediaId,
      aspectRatio: "16:9",
      durationSeconds: 4,
    });
    expect(uploads().length).toBe(before);
    expect(shown(video)).toContain("Cinematic video: the beam sweeps");
  });

  it("Use as thumbnail reference on a link's preview image takes it through Discord's media proxy", async () => {
    const picture = world.png("preview.png", [240, 200, 10]);
    const posted = world.fake.postAsUser({
      links: [{ url: "https://pictures.example/sunflower.png", image: picture }],
    });
    const before = uploads().length;

    const modal = await open(posted, "Use as thumbnail reference");
    expect(inputs(modal)).toEqual(["prompt", "aspect_ratio", "negative_prompt", "seed"]);
    const message = await submit(modal, {
      prompt: "a gardening channel intro",
      aspect_ratio: ["16:9"],
      negative_prompt: "",
      seed: "",
    });

    expect(
      uploads()
        .slice(before)
        .map((c) => c.json),
    ).toEqual([{ fileName: "sunflower.png", contentType: "image/png", fileSize: picture.data.length }]);
    const generate = world.creations("/api/thumbnail/generate").at(-1)?.json as {
      referenceImageMediaIds: string[];
    };
    expect(generate).toEqual({
      prompt: "a gardening channel intro",
      name: "a gardening channel intro",
      aspectRatio: "16:9",
      referenceImageMediaIds: [expect.any(String)],
    });
    expect(world.emu.media(generate.referenceImageMediaIds[0]!)).toMatchObject({
      receivedBytes: picture.data.length,
    });
    expect(shown(message)).toContain("Thumbnail: a gardening channel intro");
  });

  it("on a message without an image: a private answer that says so, no form and no service call", async () => {
    const posted = world.fake.postAsUser({ content: "just words" });
    const calls = world.emu.calls.length;
    const used = await world.fake.useMessageCommand({ name: "Edit image", message: posted });
    const answer = await world.answer(used);
    expect((await world.firstResponse(used)).type).toBe(5);
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain("No image in that message");
    expect(shown(answer)).toContain("Edit image works on a message with an image");
    expect(world.emu.calls.length).toBe(calls);
  });

  it("goes through the tenant's allow-lists: refused privately in a channel the bot is not enabled in", async () => {
    const tenant = { platform: "discord" as const, tenantId: world.fake.guild.id };
    const elsewhere = await world.fake.addChannel(`elsewhere-${Date.now()}`);
    await world.stores.tenants.update(tenant, { allowedChannelIds: [elsewhere.id] });
    try {
      const posted = world.fake.postAsUser({ files: [world.png("dog.png")] });
      const before = uploads().length;
      const edits = world.creations("/api/image/edit").length;
      const modal = await open(posted, "Edit image");
      const answer = await world.answer(await world.fake.submitModal(modal.custom_id, { prompt: "a hat" }));
      expect(isEphemeral(answer)).toBe(true);
      expect(shown(answer)).toContain("The bot is not enabled in this channel");
      expect(uploads().length).toBe(before);
      expect(world.creations("/api/image/edit").length).toBe(edits);
    } finally {
      await world.stores.tenants.update(tenant, { allowedChannelIds: [] });
    }
  });
});
