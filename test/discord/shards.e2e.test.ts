import { setTimeout as sleep } from "node:timers/promises";
import { Events } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningDiscord, startDiscord } from "../../src/discord/index.js";
import { registerCommands } from "../../src/discord/registration.js";
import { type FakeDiscord, shardOf } from "../fakes/discord/index.js";
import { DiscordWorld, shown, silent } from "./harness.js";

/**
 * DISCORD_SHARDS over discord.js's own sharding, against a fake gateway that routes like Discord:
 * IDENTIFY names [shard_id, num_shards], READY and GUILD_CREATE carry the shard's guilds only, and
 * a guild's interactions reach the shard (guild_id >> 22) % num_shards.
 */

let world: DiscordWorld | undefined;
let other: RunningDiscord | undefined;

afterEach(async () => {
  await other?.stop();
  other = undefined;
  world?.fake.assertNoValidationErrors();
  await world?.close();
  world = undefined;
});

/** A guild the fake puts on the other shard of two than the seeded guild (ids move with the clock). */
async function guildOnOtherShard(fake: FakeDiscord) {
  const seeded = shardOf(fake.guild.id, 2);
  for (;;) {
    const added = await fake.addGuild(`Guild ${Date.now()}`);
    if (shardOf(added.guild.id, 2) !== seeded) return { ...added, shard: 1 - seeded };
    await sleep(2);
  }
}

describe("DISCORD_SHARDS", () => {
  it("auto: runs as many shards as GET /gateway/bot recommends, each with its guilds", async () => {
    world = await DiscordWorld.start({ shards: "auto", fake: { recommendedShards: 2, maxConcurrency: 2 } });
    expect(world.fake.gateway.shards).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const { client } = world.discord;
    expect([...client.ws.shards.keys()]).toEqual([0, 1]);
    expect(client.guilds.cache.get(world.fake.guild.id)?.shardId).toBe(shardOf(world.fake.guild.id, 2));
    expect(world.discord.problem()).toBeUndefined();
  });

  it("a range per process: each runs its shards of N and answers the commands of its guilds", async () => {
    world = await DiscordWorld.start({
      shards: { first: 0, last: 0, count: 2 },
      fake: { maxConcurrency: 2 },
    });
    // The second process: shard 1 of 2. The world's bot core serves it too, as Redis would join two.
    other = await startDiscord({
      config: {
        token: world.fake.token,
        restUrl: world.fake.restUrl,
        guildId: world.fake.guild.id,
        shards: { first: 1, last: 1, count: 2 },
      },
      bot: Object.assign(Object.create(world.bot), { attach: () => undefined }),
      logger: silent,
      store: world.stores.keyv("discord"),
      stores: world.stores,
    });
    expect(world.fake.gateway.shards).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const away = await guildOnOtherShard(world.fake);
    const [mine, theirs] = away.shard === 1 ? [world.discord, other] : [other, world.discord];
    await world.until(() => theirs.client.guilds.cache.has(away.guild.id));
    expect(mine.client.guilds.cache.has(away.guild.id)).toBe(false);
    expect(theirs.client.guilds.cache.has(world.fake.guild.id)).toBe(false);

    const seen = (running: RunningDiscord) => {
      const ids: string[] = [];
      running.client.on(Events.InteractionCreate, (interaction) => ids.push(interaction.id));
      return ids;
    };
    const [seenByMine, seenByTheirs] = [seen(mine), seen(theirs)];
    await registerCommands({
      rest: world.discord.client.rest,
      applicationId: world.fake.applicationId,
      guildId: away.guild.id,
    });
    const command = await world.command({ name: "help", channelId: away.channel.id });
    expect(shown(await world.answer(command))).toContain("image");
    expect(seenByTheirs).toEqual([command.id]);
    expect(seenByMine).toEqual([]);
  });
});
