import { Readable } from "node:stream";
import { DiscordAPIError, HTTPError, type REST } from "discord.js";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { card } from "../../src/core/base/cards.js";
import { FileRefusedError, MessageGoneError } from "../../src/core/base/errors.js";
import type { MessageRef } from "../../src/core/base/ports.js";
import { DiscordAdapter, type InteractionInfo, nonceOf } from "../../src/discord/adapter.js";

/**
 * Which Discord route each post and edit takes, by the age of the interaction token, whether
 * its deferred reply is still a placeholder, and whether the answer is private. The routes
 * themselves are exercised end to end against the fake in the *.e2e tests.
 */

interface Call {
  method: string;
  route: string;
  options: {
    body?: unknown;
    files?: { key?: string; name: string; data: unknown }[];
    auth?: boolean;
    query?: URLSearchParams;
  };
}

const APP = "100000000000000001";
const CHANNEL = "200000000000000002";
const GUILD = "300000000000000003";
const MINUTE = 60_000;
const MiB = 1024 * 1024;

/**
 * `outages`: how many webhook requests fail first, as discord.js reports a 5xx once its retries
 * are spent. `gone`: the first webhook request finds its message deleted (10008 Unknown Message).
 */
function stubRest(refuseWebhooks = false, outages = 0, gone = false) {
  const calls: Call[] = [];
  let next = 300000000000000000n;
  const answer =
    (method: string) =>
    async (route: string, options: Call["options"] = {}) => {
      calls.push({ method, route, options });
      if (gone && route.startsWith("/webhooks")) {
        gone = false;
        throw new DiscordAPIError({ message: "Unknown Message", code: 10008 }, 10008, 404, method, route, {});
      }
      if (outages > 0 && route.startsWith("/webhooks")) {
        outages -= 1;
        throw new HTTPError(500, "Internal Server Error", method, route, {});
      }
      if (refuseWebhooks && route.startsWith("/webhooks")) {
        throw new DiscordAPIError(
          { message: "Invalid Webhook Token", code: 50027 },
          50027,
          401,
          method,
          route,
          {},
        );
      }
      next += 1n;
      return { id: String(next), channel_id: CHANNEL };
    };
  const rest = { post: answer("POST"), patch: answer("PATCH"), delete: answer("DELETE") } as unknown as REST;
  return { rest, calls };
}

function setup(
  options: { refuseWebhooks?: boolean; outages?: number; gone?: boolean; boostTier?: number } = {},
) {
  const clock = { t: 1_000_000, now: () => clock.t };
  const { rest, calls } = stubRest(options.refuseWebhooks, options.outages, options.gone);
  const adapter = new DiscordAdapter({
    rest,
    applicationId: () => APP,
    boostTier: () => options.boostTier,
    clock,
    logger: pino({ level: "silent" }),
  });
  let id = 0;
  const interaction = (extra: Partial<InteractionInfo> = {}): InteractionInfo => ({
    id: `i${++id}`,
    token: `token${id}`,
    user: { id: "400000000000000004" },
    channelId: CHANNEL,
    createdTimestamp: clock.t,
    attachmentSizeLimit: 10 * MiB,
    // A server that added the bot.
    guildId: GUILD,
    context: 0,
    authorizingIntegrationOwners: { guildId: GUILD },
    ...extra,
  });
  return { adapter, calls, clock, interaction };
}

const routes = (calls: Call[]) => calls.map((c) => `${c.method} ${c.route}`);

describe("posting", () => {
  it("turns the deferred reply into the first message, and sends the next ones as followups", async () => {
    const { adapter, calls, interaction } = setup();
    const conversation = adapter.conversation(interaction(), "public");
    const first = await adapter.post(conversation, card("Queued", "progress"));
    await adapter.post(conversation, { text: "more" });
    expect(routes(calls)).toEqual([
      `PATCH /webhooks/${APP}/token1/messages/%40original`,
      `POST /webhooks/${APP}/token1`,
    ]);
    expect(calls.every((c) => c.options.auth === false)).toBe(true);
    expect(calls[1]!.options.query?.get("wait")).toBe("true");
    expect(first).toMatchObject({
      channelId: CHANNEL,
      data: { sizeLimit: 10 * MiB },
      live: { token: "token1", at: 1_000_000 },
    });
  });

  it("replaces a public placeholder by a private message when the answer is private", async () => {
    const { adapter, calls, interaction } = setup();
    const ref = await adapter.post(adapter.conversation(interaction(), "public"), card("No", "error"), {
      ephemeral: true,
    });
    expect(routes(calls)).toEqual([
      `DELETE /webhooks/${APP}/token1/messages/%40original`,
      `POST /webhooks/${APP}/token1`,
    ]);
    expect(calls[1]!.options.body).toMatchObject({ flags: 64 });
    expect(ref.data).toMatchObject({ ephemeral: true });
  });

  // The queued card is public: an ephemeral deferral's placeholder is deleted for it, a public one edited.
  it.each([
    { deferral: "ephemeral" as const, failed: "DELETE @original", notice: ["PATCH @original"] },
    { deferral: "public" as const, failed: "PATCH @original", notice: ["DELETE @original", "POST followup"] },
  ])(
    "leaves a $deferral placeholder to the private notice when the first message fails",
    async ({ deferral, failed, notice }) => {
      const { adapter, calls, interaction } = setup({ outages: 1 });
      const conversation = adapter.conversation(interaction(), deferral);
      await expect(adapter.post(conversation, card("Queued", "progress"))).rejects.toThrow(HTTPError);
      await adapter.post(conversation, card("Not posted", "warning"), { ephemeral: true });
      const named = routes(calls).map((r) =>
        r
          .replace(`/webhooks/${APP}/token1/messages/%40original`, "@original")
          .replace(/\/webhooks\/.*/, "followup"),
      );
      expect(named).toEqual([failed, ...notice]);
    },
  );

  it("sends the notice as a followup of its own when someone deleted the placeholder", async () => {
    const { adapter, calls, interaction } = setup({ gone: true });
    const conversation = adapter.conversation(interaction(), "public");
    await expect(adapter.post(conversation, card("Queued", "progress"))).rejects.toThrow(MessageGoneError);
    await adapter.post(conversation, card("Not posted", "warning"), { ephemeral: true });
    expect(routes(calls)).toEqual([
      `PATCH /webhooks/${APP}/token1/messages/%40original`,
      `POST /webhooks/${APP}/token1`,
    ]);
    expect(calls[1]!.options.body).toMatchObject({ flags: 64 });
  });

  it("lets only one of two concurrent posts take the placeholder", async () => {
    const { adapter, calls, interaction } = setup();
    const conversation = adapter.conversation(interaction(), "public");
    await Promise.all([adapter.post(conversation, { text: "a" }), adapter.post(conversation, { text: "b" })]);
    expect(routes(calls).sort()).toEqual([
      `PATCH /webhooks/${APP}/token1/messages/%40original`,
      `POST /webhooks/${APP}/token1`,
    ]);
  });

  it("answers a click (a deferred update) with a new message", async () => {
    const { adapter, calls, interaction } = setup();
    await adapter.post(adapter.conversation(interaction(), "update"), card("No", "error"), {
      ephemeral: true,
    });
    expect(routes(calls)).toEqual([`POST /webhooks/${APP}/token1`]);
  });

  it("sends keyed posts as channel messages with a nonce Discord enforces, whatever the token", async () => {
    const { adapter, calls, interaction } = setup();
    await adapter.post(
      adapter.conversation(interaction(), "public"),
      { text: "ready" },
      {
        idempotencyKey: "job:ready",
        mentionUserId: "400000000000000004",
      },
    );
    expect(routes(calls)).toEqual([`POST /channels/${CHANNEL}/messages`]);
    expect(calls[0]!.options.body).toMatchObject({
      nonce: nonceOf("job:ready"),
      enforce_nonce: true,
      content: "<@400000000000000004> ready",
      allowed_mentions: { parse: [], users: ["400000000000000004"] },
    });
    expect(nonceOf("job:ready")).toHaveLength(25);
    expect(nonceOf("job:ready")).not.toBe(nonceOf("job2:ready"));
  });

  it("posts with the bot token once the token is old, and refuses a private answer then", async () => {
    const { adapter, calls, clock, interaction } = setup();
    const conversation = adapter.conversation(interaction(), "public");
    clock.t += 14 * MINUTE;
    await adapter.post(conversation, { text: "late" });
    expect(routes(calls)).toEqual([`POST /channels/${CHANNEL}/messages`]);
    await expect(adapter.post(conversation, { text: "secret" }, { ephemeral: true })).rejects.toThrow(
      /private/,
    );
  });

  it("uploads a card's files as multipart parts named as its attachments", async () => {
    const { adapter, calls, interaction } = setup();
    const bytes = Buffer.from("png bytes");
    const file = { name: "fox.png", contentType: "image/png", open: async () => Readable.from([bytes]) };
    await adapter.post(
      adapter.conversation(interaction(), "public"),
      card("Fox", "success", { media: [{ kind: "image", name: "Fox", file }] }),
    );
    expect(calls[0]!.options.files).toEqual([
      { key: "files[0]", name: "fox.png", data: bytes, contentType: "image/png" },
    ]);
    expect(calls[0]!.options.body).toMatchObject({ attachments: [{ id: "0", filename: "fox.png" }] });
  });

  it("never reads a file past the upload limit", async () => {
    const { adapter, interaction } = setup();
    let read = 0;
    const big = {
      name: "big.mp4",
      contentType: "video/mp4",
      open: async () =>
        Readable.from(
          (function* () {
            for (let i = 0; i < 4; i++) {
              read += 1;
              yield Buffer.alloc(1024 + i);
            }
          })(),
        ),
    };
    const conversation = adapter.conversation(interaction({ attachmentSizeLimit: 1024 }), "public");
    await expect(
      adapter.post(
        conversation,
        card("Big", "success", { media: [{ kind: "video", name: "big", file: big }] }),
      ),
    ).rejects.toThrow(FileRefusedError);
    // Stopped at the first chunk past the limit (a stream reads a chunk or so ahead), not at the end.
    expect(read).toBeLessThan(4);
  });
});

describe("editing", () => {
  const ref = (live: MessageRef["live"], data?: MessageRef["data"]): MessageRef => ({
    platform: "discord",
    channelId: CHANNEL,
    messageId: "500000000000000005",
    ...(data && { data }),
    ...(live && { live }),
  });

  it("edits through the interaction webhook while the token is young, then with the bot token", async () => {
    const { adapter, calls, clock } = setup();
    const young = ref({ token: "t", at: clock.t });
    await adapter.edit(young, card("Working", "progress"));
    clock.t += 14 * MINUTE;
    await adapter.edit(young, card("Done", "success"));
    await adapter.edit(ref(undefined), card("Done", "success"));
    expect(routes(calls)).toEqual([
      `PATCH /webhooks/${APP}/t/messages/500000000000000005`,
      `PATCH /channels/${CHANNEL}/messages/500000000000000005`,
      `PATCH /channels/${CHANNEL}/messages/500000000000000005`,
    ]);
    // Declarative: an edit lists the attachments that stay (none), so a repeated edit adds nothing.
    expect(calls[0]!.options.body).toMatchObject({ attachments: [], components: [] });
  });

  it("falls back to the bot token when Discord says the token is no longer valid", async () => {
    const { adapter, calls, clock } = setup({ refuseWebhooks: true });
    await adapter.edit(ref({ token: "t", at: clock.t }), card("Done", "success"));
    expect(routes(calls)).toEqual([
      `PATCH /webhooks/${APP}/t/messages/500000000000000005`,
      `PATCH /channels/${CHANNEL}/messages/500000000000000005`,
    ]);
    // Nothing else reaches a private message: it is gone for the core, which posts anew.
    await expect(
      adapter.edit(ref({ token: "t", at: clock.t }, { ephemeral: true }), card("x", "info")),
    ).rejects.toThrow(MessageGoneError);
  });

  it("cannot edit a private message once its token is gone: the core hears it is gone", async () => {
    const { adapter, calls, clock } = setup();
    const old = ref({ token: "t", at: clock.t - 15 * MINUTE }, { ephemeral: true });
    await expect(adapter.edit(old, card("x", "info"))).rejects.toThrow(MessageGoneError);
    expect(calls).toEqual([]);
  });
});

describe("a private job (privateFrom)", () => {
  it("answers ephemerally through the interaction while its token lives", async () => {
    const { adapter, calls, interaction } = setup();
    const conversation = { ...adapter.conversation(interaction(), "ephemeral"), privateFrom: CHANNEL };
    const ref = await adapter.post(conversation, card("Queued", "progress"));
    expect(routes(calls)).toEqual([`PATCH /webhooks/${APP}/token1/messages/%40original`]);
    expect(ref.data).toMatchObject({ ephemeral: true });
  });

  it("posts in the person's DM once the token is dead, and for keyed posts, saying why", async () => {
    const { adapter, calls, clock, interaction } = setup();
    const conversation = { ...adapter.conversation(interaction(), "ephemeral"), privateFrom: CHANNEL };
    clock.t += 15 * MINUTE;
    await adapter.post(conversation, card("Done", "success"), { idempotencyKey: "job:ready" });
    expect(routes(calls)).toEqual([
      "POST /users/@me/channels",
      expect.stringMatching(/^POST \/channels\/\d+\/messages$/),
    ]);
    expect(calls[0]!.options.body).toEqual({ recipient_id: "400000000000000004" });
    const body = calls[1]!.options.body as { embeds: { description: string }[]; nonce: string };
    expect(body.nonce).toBe(nonceOf("job:ready"));
    expect(body.embeds[0]!.description).toContain(`Your private job from <#${CHANNEL}>`);
  });
});

describe("upload limit", () => {
  it("is the interaction's attachment_size_limit, 10 MiB when it says nothing", () => {
    const { adapter, interaction } = setup();
    expect(
      adapter.uploadLimit(adapter.conversation(interaction({ attachmentSizeLimit: 25 * MiB }), "public")),
    ).toBe(25 * MiB);
    expect(
      adapter.uploadLimit(adapter.conversation(interaction({ attachmentSizeLimit: null }), "public")),
    ).toBe(10 * MiB);
    expect(adapter.uploadLimit({ platform: "discord", channelId: CHANNEL })).toBe(10 * MiB);
  });

  it("is the bot's own once the token is old: the server's boost, never the requester's Nitro", () => {
    for (const [tier, limit] of [
      [undefined, 10 * MiB],
      [1, 10 * MiB],
      [2, 50 * MiB],
      [3, 100 * MiB],
    ] as const) {
      const { adapter, clock, interaction } = setup({ boostTier: tier });
      const conversation = adapter.conversation(interaction({ attachmentSizeLimit: 500 * MiB }), "public");
      expect(adapter.uploadLimit(conversation)).toBe(500 * MiB);
      clock.t += 14 * MINUTE;
      expect(adapter.uploadLimit(conversation)).toBe(limit);
      // What only the person sees goes to their DM past the token, where no server's boost counts.
      expect(adapter.uploadLimit({ ...conversation, privateFrom: CHANNEL })).toBe(10 * MiB);
    }
  });
});
