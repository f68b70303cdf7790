import { beforeAll, describe, expect, it } from "vitest";
import type { EphemeralMessage, Message } from "../fakes/slack/index.js";
import { type SlackWorld, shown, slackWorldPerFile } from "./harness.js";

/**
 * Lists in Slack: a list is an ephemeral message that pages in place through the click's
 * response_url (Previous, Next), Show sends an entry's file to the person's DM with the bot (an
 * ephemeral message cannot carry files), and /jobs links each job to its message. The service
 * pages the thumbnails itself (two to a page here); the bot pages the jobs (ten to a page).
 */

let world: SlackWorld;
slackWorldPerFile(
  (started) => {
    world = started;
  },
  { emulator: { thumbnailsPageSize: 2 } },
);

/** The labels of a message's buttons, in order. */
const buttons = (message: Pick<Message, "blocks">) =>
  message.blocks
    .filter((b) => b.type === "actions")
    .flatMap((b) => (b as { elements: { text: { text: string } }[] }).elements.map((e) => e.text.text));

function actionIdOf(message: Pick<Message, "blocks">, label: string): string {
  for (const block of message.blocks.filter((b) => b.type === "actions")) {
    const elements = (block as { elements: { action_id: string; text: { text: string } }[] }).elements;
    const found = elements.find((e) => e.text.text === label);
    if (found) return found.action_id;
  }
  throw new Error(`no button ${label}`);
}

const requester = () => world.fake.users.requester.id;
const mine = () => world.fake.ephemerals().filter((m) => m.user === requester());
const current = (ts: string) => world.fake.ephemerals().find((m) => m.message_ts === ts)!;

/** Runs a list command and resolves with the ephemeral list it answered with. */
async function list(text: string): Promise<EphemeralMessage> {
  const before = mine().length;
  await world.command(text);
  return world.until(() => mine()[before]);
}

/** Clicks `label` on the list; resolves with the list once it changed in place. */
async function click(message: EphemeralMessage, label: string): Promise<EphemeralMessage> {
  const before = shown(current(message.message_ts));
  await world.fake.blockAction(world.eventsUrl, {
    actionId: actionIdOf(current(message.message_ts), label),
    message: message.message_ts,
    user: requester(),
  });
  return world.until(() => {
    const now = current(message.message_ts);
    return shown(now) !== before ? now : undefined;
  });
}

const listCalls = () => world.emu.callsTo("GET", "/api/thumbnails").map((c) => c.query.page ?? "1");

let jobMessages: Message[];

beforeAll(async () => {
  // Three thumbnails (two pages at the service) and eight images: eleven jobs, two pages of jobs.
  jobMessages = [];
  for (const prompt of ["title one", "title two", "title three"])
    jobMessages.push(await world.job(`thumbnail generate ${prompt}`));
  for (let i = 1; i <= 8; i += 1) jobMessages.push(await world.job(`image generate fox ${i}`));
}, 60_000);

describe("lists in Slack", () => {
  it("pages the thumbnails forward and back in place, asking the service for each page", async () => {
    const first = await list("thumbnail list");
    expect(shown(first)).toContain("Page 1 of 2, 3 in all.");
    expect(shown(first)).toContain("title three");
    expect(buttons(first)).toEqual(["Show 1", "Show 2", "Next ▶"]);
    const calls = listCalls().length;
    const lists = mine().length;

    const second = await click(first, "Next ▶");
    expect(shown(second)).toContain("Page 2 of 2, 3 in all.");
    expect(shown(second)).toContain("title one");
    expect(shown(second)).not.toContain("title three");
    expect(buttons(second)).toEqual(["Show 1", "◀ Previous"]);
    expect(listCalls().slice(calls)).toEqual(["2"]);

    const back = await click(second, "◀ Previous");
    expect(shown(back)).toContain("Page 1 of 2, 3 in all.");
    expect(listCalls().slice(calls)).toEqual(["2", "1"]);
    // The same ephemeral message throughout, replaced through the response_url.
    expect(mine()).toHaveLength(lists);
    expect(
      world.fake.responseUrlPosts
        .slice(-2)
        .map((p) => (p.body as { replace_original?: unknown }).replace_original),
    ).toEqual([true, true]);
  });

  it("pages /jobs forward and back, each entry linking to its job's message", async () => {
    const first = await list("jobs");
    expect(shown(first)).toContain("Page 1 of 2, 11 in all.");
    const link = (m: Message) =>
      `<https://slack.com/archives/${world.fake.channelId}/p${m.ts.replace(".", "")}|`;
    // Newest first: the third thumbnail and the eight images on the first page, with the second thumbnail.
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

    const back = await click(second, "◀ Previous");
    expect(shown(back)).toContain("Page 1 of 2, 11 in all.");
    expect(shown(back)).toContain(link(jobMessages.at(-1)!));
  });

  it("Show sends the entry's image to the person's DM with the bot, and says so where they clicked", async () => {
    const first = await list("thumbnail list");
    const notes = mine().length;
    const inChannel = world.fake.messages(world.fake.channelId).length;
    await world.fake.blockAction(world.eventsUrl, {
      actionId: actionIdOf(first, "Show 1"),
      message: first.message_ts,
      user: requester(),
    });
    const upload = await world.until(() => world.fake.uploads.find((u) => u.channel?.startsWith("D")));
    expect(upload.filename).toMatch(/\.png$/);
    // The DM's card shows the uploaded file itself, once uploaded.
    const dm = await world.until(() =>
      world.fake
        .messages(upload.channel!)
        .find(
          (m) => m.ts === upload.threadTs && JSON.stringify(m.blocks).includes(`"id":"${upload.fileId}"`),
        ),
    );
    expect(shown(dm)).toContain("title three");
    expect(JSON.stringify(dm.blocks)).toContain(`"slack_file":{"id":"${upload.fileId}"}`);
    const note = await world.until(() => mine()[notes]);
    expect(note.text).toContain("sent to you in a direct message");
    // Nothing new in the channel: only the person who clicked sees it.
    expect(world.fake.messages(world.fake.channelId)).toHaveLength(inChannel);
  });

  it("says plainly when a Show or a page is clicked after the items are gone", async () => {
    const first = await list("thumbnail list");
    const notes = mine().length;
    world.emu.reset(); // the account's thumbnails are gone

    await world.fake.blockAction(world.eventsUrl, {
      actionId: actionIdOf(first, "Show 1"),
      message: first.message_ts,
      user: requester(),
    });
    const answer = await world.until(() => mine()[notes]);
    expect(shown(answer)).toContain("is no longer in this list");

    const emptied = await click(first, "Next ▶");
    expect(shown(emptied)).toContain("No thumbnails here");
    expect(buttons(emptied)).toEqual([]);
  });
});
