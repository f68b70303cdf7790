import { describe, expect, it } from "vitest";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

/**
 * A user install over HTTP interactions: the same place, tenant and webhook-only answers as over
 * the gateway (user-installs.e2e.test.ts), from interactions the fake POSTs to the bot's endpoint.
 */

let world: DiscordWorld;
discordWorldPerFile(
  (started) => {
    world = started;
  },
  // The operator's key serves the requester, as MEDIA_API_KEY_TENANTS may name people.
  { interactions: "http", globalCommands: true, apiKeyTenants: (fake) => [fake.users.requester.id] },
);

describe("a user install over HTTP interactions", () => {
  it("answers in a server without the bot through the interaction only, on the person's tenant", async () => {
    const { channel } = await world.fake.addGuild("No bot", { bot: false });
    world.fake.installForUser(world.fake.users.requester);
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a heron at noon" },
      channelId: channel.id,
    });
    const done = await world.jobMessage(interaction);
    expect(done.channel_id).toBe(channel.id);
    expect(isEphemeral(done)).toBe(false);
    expect(shown(done)).toContain("a heron at noon");
    expect(done.attachments).toHaveLength(1);
    expect(world.fake.calls.filter((c) => c.path.startsWith(`/channels/${channel.id}/`))).toEqual([]);
  });
});
