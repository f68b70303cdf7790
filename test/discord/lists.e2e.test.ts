import type { APIMessage } from "discord-api-types/v10";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeControlId } from "../../src/discord/custom-id.js";
import { PNG_SIGNATURE } from "../core/fake-adapter.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * Lists on Discord: a private list pages in place (Previous, Next) for the person who asked, Show
 * posts an entry's image to them privately, and /jobs links each job to its message. The service
 * pages the thumbnails itself (two to a page here); the bot pages the jobs (ten to a page).
 */

let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  { emulator: { thumbnailsPageSize: 2 } },
);

/** The labels of a message's buttons, in order. */
const buttons = (message: APIMessage) =>
  [...JSON.stringify(message.components ?? []).matchAll(/"label":"([^"]+)"/g)].map((m) => m[1]!);

/** The custom_id of the button labelled `label`. */
function buttonId(message: APIMessage, label: string): string {
  const rows = (message.components ?? []) as unknown as {
    components: { label?: string; custom_id?: string }[];
  }[];
  const found = rows.flatMap((r) => r.components).find((c) => c.label === label);
  if (!found?.custom_id) throw new Error(`no button ${label} on ${message.id}`);
  return found.custom_id;
}

/** Clicks `label` on `message` as its owner; resolves with the message once it changed. */
async function click(message: APIMessage, label: string): Promise<APIMessage> {
  const before = shown(message);
  await world.fake.clickButton(message, buttonId(message, label));
  return world.until(() => {
    const now = world.fake.message(message.id);
    return now && shown(now) !== before ? now : undefined;
  });
}

const listCalls = () => world.emu.callsTo("GET", "/api/thumbnails").map((c) => c.query.page ?? "1");

let jobMessages: APIMessage[];

beforeAll(async () => {
  // Three thumbnails (two pages at the service) and eight images: eleven jobs, two pages of jobs.
  jobMessages = [];
  for (const prompt of ["title one", "title two", "title three"]) {
    const command = await world.command({ name: "thumbnail", subcommand: "generate", options: { prompt } });
    jobMessages.push(await world.jobMessage(command));
  }
  for (let i = 1; i <= 8; i += 1) {
    const command = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: `fox ${i}` },
    });
    jobMessages.push(await world.jobMessage(command));
  }
}, 60_000);

describe("lists on Discord", () => {
  it("pages the thumbnails forward and back in place, asking the service for each page", async () => {
    const first = await world.run({ name: "thumbnail", subcommand: "list" });
    expect(isEphemeral(first)).toBe(true);
    expect(shown(first)).toContain("Page 1 of 2, 3 in all.");
    expect(shown(first)).toContain("title three");
    expect(buttons(first)).toEqual(["Show 1", "Show 2", "Next ▶"]);
    const calls = listCalls().length;

    const second = await click(first, "Next ▶");
    expect(second.id).toBe(first.id);
    expect(shown(second)).toContain("Page 2 of 2, 3 in all.");
    expect(shown(second)).toContain("title one");
    expect(shown(second)).not.toContain("title three");
    expect(buttons(second)).toEqual(["Show 1", "◀ Previous"]);
    expect(listCalls().slice(calls)).toEqual(["2"]);

    const back = await click(second, "◀ Previous");
    expect(back.id).toBe(first.id);
    expect(shown(back)).toContain("Page 1 of 2, 3 in all.");
    expect(listCalls().slice(calls)).toEqual(["2", "1"]);
    // One message throughout: nothing new was posted in the channel.
    expect(world.fake.messages().filter((m) => shown(m).includes("Thumbnails"))).toHaveLength(1);
  });

  it("pages /jobs forward and back, each entry linking to its job's message", async () => {
    const first = await world.run({ name: "jobs" });
    expect(shown(first)).toContain("Page 1 of 2, 11 in all.");
    const { id: guildId } = world.fake.guild;
    const link = (m: APIMessage) => `(https://discord.com/channels/${guildId}/${m.channel_id}/${m.id})`;
    // Newest first: the last eight images, then the third thumbnail, ..., ten on the first page.
    for (const message of jobMessages.slice(1)) expect(shown(first)).toContain(link(message));
    expect(shown(first)).not.toContain(link(jobMessages[0]!));
    // The page's four newest finished results each have a Delete, then the pages.
    expect(buttons(first)).toEqual([
      "Delete: Image: fox 8",
      "Delete: Image: fox 7",
      "Delete: Image: fox 6",
      "Delete: Image: fox 5",
      "Next ▶",
    ]);

    const second = await click(first, "Next ▶");
    expect(shown(second)).toContain("Page 2 of 2, 11 in all.");
    expect(shown(second)).toContain(link(jobMessages[0]!));
    expect(shown(second)).toContain("title one");

    const back = await click(second, "◀ Previous");
    expect(shown(back)).toContain("Page 1 of 2, 11 in all.");
    expect(shown(back)).toContain(link(jobMessages.at(-1)!));
  });

  it("Show posts the entry's image privately to the person who clicked", async () => {
    const list = await world.run({ name: "thumbnail", subcommand: "list" });
    const click = await world.fake.clickButton(list, buttonId(list, "Show 1"));
    const posted = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(posted)).toBe(true);
    expect(shown(posted)).toContain("title three");
    const [attachment] = posted.attachments;
    expect(attachment?.filename).toMatch(/\.png$/);
    expect(world.fake.file(attachment!)!.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // The list itself is unchanged.
    expect(shown(world.fake.message(list.id)!)).toContain("Page 1 of 2");
  });

  it("says plainly when a Show or a page is clicked after the items are gone", async () => {
    const list = await world.run({ name: "thumbnail", subcommand: "list" });
    const show = decodeControlId(buttonId(list, "Show 1"))!;
    world.emu.reset(); // the account's thumbnails are gone

    const click = await world.fake.clickButton(list, buttonId(list, "Show 1"));
    const answer = await world.until(() => world.fake.followups(click.id)[0]);
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain(`Item ${show.value!.split(".")[1]} is no longer in this list`);

    // A page of a list that emptied meanwhile says so, in place.
    await world.fake.clickButton(list, buttonId(list, "Next ▶"));
    const emptied = await world.until(() => {
      const now = world.fake.message(list.id);
      return now && shown(now).includes("No thumbnails here") ? now : undefined;
    });
    expect(buttons(emptied)).toEqual([]);
  });
});
