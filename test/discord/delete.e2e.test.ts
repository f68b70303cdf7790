import type { APIMessage } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile, shown } from "./harness.js";

/**
 * Delete on a finished result through the real discord.js client: its requester (or an admin)
 * confirms, the bot's message goes (one DELETE however often it is clicked), and the job stays in
 * the jobs list marked deleted; anyone else is refused and the message stays.
 */

let world: DiscordWorld;
discordWorldPerFile((started) => {
  world = started;
});

const DELETE = "delete_result";

async function finished(prompt: string, options: Record<string, string> = {}) {
  const interaction = await world.command({
    name: "image",
    subcommand: "generate",
    options: { prompt, ...options },
  });
  return { interaction, message: await world.jobMessage(interaction) };
}

/** The private answers of a click, once one shows `text`. */
const answered = (click: { id: string }, text: string) =>
  world.until(() => world.fake.followups(click.id).find((m) => shown(m).includes(text)));

/** The DELETE requests that reached `message`, by the bot token or an interaction's. */
const deletesOf = (message: APIMessage, click?: { token: string }) =>
  world.fake.calls.filter(
    (c) =>
      c.method === "DELETE" &&
      (c.path.endsWith(`/messages/${message.id}`) ||
        (click !== undefined && c.path.includes(click.token) && c.path.endsWith("/@original"))),
  );

/** Clicks Delete on the result as `user`, then Delete it on the question that answers. */
async function confirmDelete(message: APIMessage, user = world.fake.users.requester) {
  const click = await world.fake.clickButton(message, world.controlId(message, DELETE), user);
  const question = await answered(click, "cannot be brought back");
  return { question, sure: world.controlId(question, DELETE, "sure") };
}

/** The custom_id of the button labelled `label` on `message`. */
function buttonId(message: APIMessage, label: string): string {
  const rows = (message.components ?? []) as unknown as {
    components: { label?: string; custom_id?: string }[];
  }[];
  const found = rows.flatMap((r) => r.components).find((c) => c.label === label);
  if (!found?.custom_id) throw new Error(`no button ${label} on ${message.id}`);
  return found.custom_id;
}

describe("Delete on a finished result on Discord", () => {
  it("the requester confirms: the message is deleted, the question says so, and the jobs list shows it deleted without its link", async () => {
    const { message } = await finished("a fox to delete");
    const { question, sure } = await confirmDelete(message);
    expect(world.fake.message(message.id)).toBeDefined();
    await world.fake.clickButton(question, sure);
    await world.until(() => world.fake.message(message.id) === undefined);
    await world.until(() => shown(world.fake.message(question.id)!).includes("its message is deleted"));
    expect(deletesOf(message)).toHaveLength(1);
    const jobs = shown(await world.run({ name: "jobs" }));
    expect(jobs).toMatch(/a fox to delete[\s\S]*Done · deleted/);
    expect(jobs).not.toContain(message.id);
    world.fake.assertNoValidationErrors();
  }, 30_000);

  it("someone else's click is refused, with who may; the message stays", async () => {
    const { message } = await finished("not yours");
    const click = await world.fake.clickButton(
      message,
      world.controlId(message, DELETE),
      world.fake.users.other,
    );
    const refusal = await answered(click, "or an admin can delete it");
    expect(shown(refusal)).toContain(`<@${world.fake.users.requester.id}>, who asked for this result`);
    expect(world.fake.message(message.id)).toBeDefined();
    expect(deletesOf(message)).toHaveLength(0);
  }, 30_000);

  it("a double click on Delete it deletes once; the other click is told", async () => {
    const { message } = await finished("clicked twice");
    const { question, sure } = await confirmDelete(message);
    const clicks = await Promise.all([
      world.fake.clickButton(question, sure),
      world.fake.clickButton(question, sure),
    ]);
    await world.until(() => world.fake.message(message.id) === undefined);
    // One click deleted it (its question says so); the other was told it is being, or was, deleted.
    await world.until(() =>
      clicks.some((click) =>
        world.fake
          .followups(click.id)
          .some((m) => /being deleted|was deleted: its buttons no longer act/.test(shown(m))),
      ),
    );
    expect(deletesOf(message)).toHaveLength(1);
  }, 30_000);

  it("an admin deletes someone's result", async () => {
    const { message } = await finished("the admin removes it");
    const { question, sure } = await confirmDelete(message, world.fake.users.admin);
    await world.fake.clickButton(question, sure, world.fake.users.admin);
    await world.until(() => world.fake.message(message.id) === undefined);
    expect(deletesOf(message)).toHaveLength(1);
  }, 30_000);

  it("a private result goes at the first click, through that click's own interaction", async () => {
    const { message } = await finished("a secret to delete", { delivery: "private" });
    const click = await world.fake.clickButton(message, world.controlId(message, DELETE));
    await world.until(() => world.fake.message(message.id) === undefined);
    await answered(click, "its message is deleted");
    expect(deletesOf(message, click)).toHaveLength(1);
  }, 30_000);

  it("from the jobs list: its Delete asks, then deletes that job's message", async () => {
    const { message } = await finished("listed for deletion");
    const list = await world.run({ name: "jobs" });
    const click = await world.fake.clickButton(list, buttonId(list, "Delete: Image: listed for deletion"));
    const question = await answered(click, "cannot be brought back");
    expect(shown(question)).toContain("listed for deletion");
    await world.fake.clickButton(question, world.controlId(question, DELETE, "sure"));
    await world.until(() => world.fake.message(message.id) === undefined);
    expect(deletesOf(message)).toHaveLength(1);
    expect(shown(await world.run({ name: "jobs" }))).toMatch(/listed for deletion[\s\S]*Done · deleted/);
  }, 30_000);
});
