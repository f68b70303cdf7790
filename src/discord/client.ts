import { Client, type ClientOptions, GatewayIntentBits, Options, type RESTOptions } from "discord.js";
import type { Config } from "../core/config/config.js";

export type DiscordConfig = NonNullable<Config["discord"]>;

/**
 * discord.js REST options. DISCORD_REST_URL points it at a REST proxy, or at the local fake in
 * tests. Requests go through Node's own fetch: @discordjs/rest's default sends through the
 * process-wide undici dispatcher, which the project's undici 7 replaces as soon as it loads, and
 * that dispatcher cannot read the multipart bodies @discordjs/rest builds (every upload failed).
 * The cast is between two copies of undici's types (Node's and @discordjs/rest's own) of one call.
 */
export function restOptions(config: Pick<DiscordConfig, "restUrl">): Partial<RESTOptions> {
  return {
    api: config.restUrl,
    makeRequest: fetch as RESTOptions["makeRequest"],
    handlerSweepInterval: HANDLER_SWEEP_MS,
  };
}

/**
 * @discordjs/rest keeps a rate-limit handler per route, and every interaction's token is a route
 * of its own: hourly sweeps (its default) let about 500 B per interaction pile up for an hour
 * (soak-heap.md). A token is dead after 15 minutes, so its handler is swept that often.
 */
const HANDLER_SWEEP_MS = 15 * 60_000;

/**
 * The discord.js client. Interactions need no intent at all; Guilds is the one discord.js needs
 * to know the guilds and channels it is in. No message content, no members, no presences: the
 * bot reads nothing people write, only what they send it through its commands.
 */
export function createDiscordClient(config: DiscordConfig): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds],
    rest: restOptions(config),
    allowedMentions: { parse: [] },
    // The bot edits its messages by id and never reads them back: discord.js's cache of up to 200
    // posted messages per channel (about 1 MB each channel) only held memory (soak-heap.md).
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    ...shardOptions(config.shards),
  });
}

/**
 * DISCORD_SHARDS as discord.js's own sharding: `auto` takes the count Discord recommends
 * (GET /gateway/bot) and runs every shard here; a range runs its shards of the count it names,
 * so processes on several machines split one bot. Unset: one shard, discord.js's default.
 */
export function shardOptions(shards: DiscordConfig["shards"]): Pick<ClientOptions, "shards" | "shardCount"> {
  if (shards === undefined) return {};
  if (shards === "auto") return { shards: "auto" };
  const ids = Array.from({ length: shards.last - shards.first + 1 }, (_, i) => shards.first + i);
  return { shards: ids, shardCount: shards.count };
}
