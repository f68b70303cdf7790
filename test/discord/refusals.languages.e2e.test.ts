import { PermissionFlagsBits } from "discord-api-types/v10";
import { describe, expect, it, vi } from "vitest";
import { TOKEN_LIFETIME_MS } from "../fakes/discord/index.js";
import { type DiscordWorld, discordWorldPerFile, shown } from "./harness.js";

/**
 * Discord's refusal, when it sends a job to its requester's DM, is said in the requester's
 * language: the reason comes from the catalogues, with the permissions named as a German client
 * names them.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

describe("a German requester's job that its channel no longer takes", () => {
  it("comes to their DM saying, in German, which permissions the bot lacks", async () => {
    const greta = world.fake.addUser("greta", { locale: "de" });
    const dm = world.fake.dmChannel(greta.id);
    const inDm = world.fake.messages(dm).length;
    const channel = await world.fake.addChannel("stumm");
    world.emu.planNextJob("image", { durationMs: 800 });
    const interaction = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "ein Fuchs ohne Stimme" },
      channelId: channel.id,
      user: greta,
    });
    // Its first progress edit names the job: the job is under way.
    const running = await world.jobMessage(interaction, (m) => m.embeds[0]?.footer !== undefined);
    world.fake.clock.advance(TOKEN_LIFETIME_MS + 1000);
    await world.fake.overwritePermissions(channel.id, {
      id: world.fake.botUser.id,
      type: "member",
      deny: PermissionFlagsBits.SendMessages,
    });
    world.fake.deleteMessage(running.id);

    const result = await vi.waitFor(
      () => {
        const posted = world.fake.messages(dm).slice(inDm);
        expect(posted).toHaveLength(1);
        return posted[0]!;
      },
      { timeout: 8_000, interval: 20 },
    );
    expect(shown(result)).toContain(
      "Der Bot darf in diesem Kanal nicht posten. Ein Admin des Servers kann ihm dort „Nachrichten senden“, „Links einbetten“ und „Dateien anhängen“ geben.",
    );
    expect(shown(result)).not.toContain("Send Messages");
  });
});
