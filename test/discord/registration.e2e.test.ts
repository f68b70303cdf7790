import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { registeredCommands } from "../../src/discord/commands.js";
import { type DiscordWorld, discordWorldPerFile } from "./harness.js";

/** Slash commands registered on start only when they changed, and by `npm run register:discord`. */

let world: DiscordWorld;
const CLI = fileURLToPath(new URL("../../src/discord/register-cli.ts", import.meta.url));
const names = registeredCommands()
  .map((c) => c.name)
  .sort();

discordWorldPerFile((started) => {
  world = started;
});

const overwrites = () => world.fake.calls.filter((c) => c.method === "PUT" && c.route.endsWith("/commands"));

describe("registration on start", () => {
  it("registers the catalogue in DISCORD_GUILD_ID, and again only after the definitions changed", async () => {
    expect(
      world.fake
        .commands(world.fake.guild.id)
        .map((c) => c.name)
        .sort(),
    ).toEqual(names);
    expect(overwrites()).toHaveLength(1);

    await world.restart();
    expect(overwrites()).toHaveLength(1);

    // What an older version of the bot registered: the stored hash no longer matches.
    const store = world.stores.keyv("discord");
    const key = `commands:${world.fake.applicationId}:${world.fake.guild.id}`;
    expect(await store.get(key)).toMatch(/^[0-9a-f]{64}$/);
    await store.set(key, "an older catalogue");
    await world.restart();
    expect(overwrites()).toHaveLength(2);
  });
});

describe("npm run register:discord", () => {
  it("registers globally without DISCORD_GUILD_ID, where DMs get every command but the servers' budget", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", CLI], {
      env: { PATH: process.env.PATH, DISCORD_TOKEN: world.fake.token, DISCORD_REST_URL: world.fake.restUrl },
    });
    expect(stdout).toContain(`Registered ${names.length} commands (slash and message commands) globally`);
    expect(
      world.fake
        .commands()
        .map((c) => c.name)
        .sort(),
    ).toEqual(names);
    await expect(world.command({ name: "budget", guild: false })).rejects.toThrow(/cannot be used in a DM/);
    expect(await world.run({ name: "help", guild: false })).toBeDefined();
  });

  it("says what is missing instead of a stack trace", async () => {
    const failed = await promisify(execFile)(process.execPath, ["--import", "tsx", CLI], {
      env: { PATH: process.env.PATH },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain(
      "Could not register the Discord commands: No chat platform",
    );
  });
});
