import { expect, it } from "vitest";
import { commandByName } from "../../src/core/commands/catalogue.js";
import {
  FORM_TTL_MS,
  MAX_FORMS,
  MAX_FORMS_PER_USER,
  type PendingForm,
  PendingForms,
} from "../../src/discord/pending-forms.js";
import { describeEachBackend } from "../store/backends.js";

/**
 * Commands waiting for their modal are held in the bot's store, for a bounded time and in bounded
 * numbers, so that the submission may reach another replica (another connection to the store).
 */

const command = commandByName("image.edit")!;
const photo = { name: "photo.png", contentType: "image/png", size: 3, url: "https://cdn.example/photo.png" };
const form = (userId: string): PendingForm => ({
  command,
  options: { prompt: "add a hat" },
  files: { image: [photo] },
  userId,
});

describeEachBackend("pending forms", (ctx) => {
  it("submit on another replica: the command, its options and its attachment come back once", async () => {
    const [one, two] = [new PendingForms(await ctx.open()), new PendingForms(await ctx.open())];
    const key = await one.put(form("u1"));
    const taken = await two.take(key, "u1");
    expect(taken?.command.name).toBe("image.edit");
    expect(taken?.options).toEqual({ prompt: "add a hat" });
    expect(taken?.attachments.image?.map((a) => [a.name, a.contentType, a.size])).toEqual([
      ["photo.png", "image/png", 3],
    ]);
    expect(await one.take(key, "u1")).toBeUndefined();
  });

  it("a modal submitted twice at once, on two replicas, runs its command once", async () => {
    const replicas = [new PendingForms(await ctx.open()), new PendingForms(await ctx.open())];
    const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[0]!.put(form(`u${i}`))));
    const taken = await Promise.all(
      keys.flatMap((key, i) => replicas.map((r) => r.take(key, `u${i}`).then((f) => f !== undefined))),
    );
    expect(taken.filter(Boolean)).toHaveLength(20);
  });

  it("is not anyone else's to submit", async () => {
    const forms = new PendingForms(await ctx.open());
    const key = await forms.put(form("u1"));
    expect(await forms.take(key, "u2")).toBeUndefined();
    expect(await forms.take(key, "u1")).toBeDefined();
  });

  it("are forgotten after 15 minutes", async () => {
    const clock = { t: Date.now(), now: () => clock.t };
    const forms = new PendingForms(await ctx.open(), clock);
    const key = await forms.put(form("u1"));
    clock.t += FORM_TTL_MS + 1;
    expect(await forms.take(key, "u1")).toBeUndefined();
  });

  it("keep only a person's latest few: an older one is gone, the newest still submits", async () => {
    const stores = await ctx.open();
    const forms = new PendingForms(stores);
    const keys: string[] = [];
    for (let i = 0; i < MAX_FORMS_PER_USER + 2; i += 1) keys.push(await forms.put(form("u1")));
    const other = await forms.put(form("u2"));
    expect(await forms.take(keys[0]!, "u1")).toBeUndefined();
    expect(await forms.take(keys[1]!, "u1")).toBeUndefined();
    expect(await stores.keyv("discord-forms").get(keys[0]!)).toBeUndefined();
    expect(await forms.take(keys.at(-1)!, "u1")).toBeDefined();
    expect(await forms.take(other, "u2")).toBeDefined();
  });

  it("never hold more than the overall bound, whoever opens them", async () => {
    const stores = await ctx.open();
    const forms = new PendingForms(stores);
    const first = await forms.put(form("user-0"));
    for (let i = 1; i <= MAX_FORMS; i += 1) await forms.put(form(`user-${i}`));
    const last = await forms.put(form("user-last"));
    expect(await forms.take(first, "user-0")).toBeUndefined();
    expect(await stores.keyv("discord-forms").get(first)).toBeUndefined();
    expect(await stores.indexes.list("discord-forms:user-0")).toEqual([]);
    expect((await stores.indexes.list("discord-forms")).length).toBeLessThanOrEqual(MAX_FORMS);
    expect(await forms.take(last, "user-last")).toBeDefined();
  }, 60_000);
});
