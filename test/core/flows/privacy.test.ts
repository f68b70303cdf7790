import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageRef } from "../../../src/core/base/ports.js";
import { AccessError } from "../../../src/core/commands/errors.js";
import { byOption } from "../../../src/core/commands/validate.js";
import { privacyOf } from "../../../src/core/flows/privacy.js";
import { actor, CHANNEL, Harness, text } from "../bot/harness.js";
import { eventually } from "../fake-adapter.js";

/**
 * Who sees a job: a private one's every post is for its person only (the adapter's private
 * place), its follow-ups too, wherever they are clicked; an admin's "forbidden" refuses a private
 * request before anything is spent, and overrules a private default with a note.
 */

const allowed = { privateResults: "allowed" as const };
const forbidden = { privateResults: "forbidden" as const };
const discord = { platform: "discord" as const };

describe("privacyOf", () => {
  it("is public unless private was chosen, typed or by default", () => {
    expect(privacyOf(discord, {}, undefined, allowed)).toEqual({ private: false });
    expect(privacyOf(discord, { delivery: "public" }, "public", forbidden)).toEqual({ private: false });
    expect(privacyOf(discord, { delivery: "private" }, "private", allowed)).toEqual({ private: true });
    expect(privacyOf(discord, {}, "private", allowed)).toEqual({ private: true });
  });

  it("refuses a private result asked for in a tenant that forbids it, in the platform's words", () => {
    const asked = () =>
      privacyOf({ platform: "slack" }, byOption({ Delivery: "private" }), "private", forbidden);
    expect(asked).toThrow(AccessError);
    expect(asked).toThrow(
      "This workspace shows every job in its channel; private results are turned off by an admin.",
    );
    expect(() => privacyOf(discord, { delivery: "private" }, "private", forbidden)).toThrow(/^This server/);
  });

  it("overrules a private default there, with the note the job's footer shows", () => {
    expect(privacyOf(discord, { delivery: "" }, "private", forbidden)).toEqual({
      private: false,
      note: "Shown in the channel: an admin turned private results off here.",
    });
  });
});

describe("a private job in the core", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(async () => {
    await h.close();
  });
  const tenant = { platform: "discord" as const, tenantId: actor().tenantId };

  /** The job's message once its result shows (a private job has no ready notice to wait for). */
  const result = (ref: MessageRef) =>
    eventually(() => {
      const card = h.chat.card(ref);
      return card.tone === "success" ? card : undefined;
    });

  it("posts only to the private place, records it with the job, and makes no ready notice", async () => {
    const before = h.chat.posts.length;
    const ref = await h.startJob("image.generate", { prompt: "a fox", delivery: "private" });
    await result(ref);
    const posts = h.chat.posts.slice(before);
    expect(posts.map((p) => p.target.privateFrom)).toEqual([CHANNEL.channelId]);
    const jobId = h.chat.card(ref).footer?.replace("Job ", "");
    const job = await h.stores.jobs.get(jobId!);
    expect(job?.conversation).toMatchObject({ privateFrom: CHANNEL.channelId });
  });

  it("keeps a follow-up private wherever it is clicked, and checks access where the job was asked", async () => {
    const ref = await h.startJob("image.generate", { prompt: "a lake", delivery: "private" });
    await result(ref);
    await h.stores.tenants.update(tenant, { allowedChannelIds: [CHANNEL.channelId] });
    try {
      const before = h.chat.posts.length;
      const control = h.chat.card(ref).actions.find((a) => a.action === "regenerate")!;
      // Clicked in the person's DM, which no allow-list names.
      await h.bot.handleAction({
        action: "regenerate",
        jobId: control.jobId,
        actor: actor(),
        message: ref,
        conversation: { platform: "discord", channelId: "dm-1" },
      });
      const post = h.chat.posts.slice(before).find((p) => !p.options.ephemeral);
      expect(post?.target).toMatchObject({ channelId: "dm-1", privateFrom: CHANNEL.channelId });
    } finally {
      await h.stores.tenants.update(tenant, { allowedChannelIds: [] });
    }
  });

  it("lets a click from a DM (the person's own tenant) act in the job's tenant, for its requester only", async () => {
    const ref = await h.startJob("image.generate", { prompt: "a moth", delivery: "private" });
    await result(ref);
    const control = h.chat.card(ref).actions.find((a) => a.action === "regenerate")!;
    const fromDm = (userId: string) =>
      h.bot.handleAction({
        action: "regenerate",
        jobId: control.jobId,
        // In their DM a person is their own tenant, and its admin.
        actor: actor({ userId, tenantId: userId, isAdmin: true }),
        message: ref,
        conversation: { platform: "discord", channelId: "dm-2" },
      });
    const made = h.creations("/api/image/generate").length;

    await fromDm("user-2");
    expect(text(h.lastEphemeral())).toContain("The bot no longer knows this job");
    expect(h.creations("/api/image/generate")).toHaveLength(made);

    const before = h.chat.posts.length;
    await fromDm(actor().userId);
    const post = h.chat.posts.slice(before).find((p) => !p.options.ephemeral);
    expect(post?.target).toMatchObject({ channelId: "dm-2", privateFrom: CHANNEL.channelId });
    expect(h.creations("/api/image/generate")).toHaveLength(made + 1);
  });

  it("refuses a follow-up of a private result once an admin forbade them, before any creation call", async () => {
    const ref = await h.startJob("image.generate", { prompt: "an owl", delivery: "private" });
    await result(ref);
    await h.stores.tenants.update(tenant, forbidden);
    try {
      const made = h.creations("/api/image/generate").length;
      await h.click(ref, "regenerate");
      expect(text(h.lastEphemeral())).toContain("private results are turned off by an admin");
      expect(h.creations("/api/image/generate")).toHaveLength(made);
    } finally {
      await h.stores.tenants.update(tenant, allowed);
    }
  });
});
