/**
 * Everything the playground runs: the media API emulator, the fake Discord, the fake Slack, and the
 * real bot wired to them (discord.js over the fake gateway and REST, Bolt over signed HTTP calling
 * the fake Web API), with sqlite stores in a temp dir. No credentials: the fakes make their own.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { startDiscord } from "../../src/discord/index.js";
import { healthRoutes, Readiness } from "../../src/http/health.js";
import { startHttpServer } from "../../src/http/index.js";
import { startSlack } from "../../src/slack/index.js";
import type { Stores } from "../../src/store/index.js";
import { openBotCore } from "../bot-core.js";
import { type FakeDiscord, startFakeDiscord } from "../fakes/discord/index.js";
import { type Emulator, startEmulator } from "../fakes/media-api/index.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import type { Person } from "./mentions.js";

/** A place of the Discord pane: a channel id, or DM for each person's DM with the bot. */
export interface DiscordPlace {
  id: string;
  label: string;
}

/** The Discord pane's place that stands for the acting person's DM with the bot. */
export const DM_PLACE = "dm";

/** The seeded members of each platform, by the names the clients show. */
export interface People {
  discord: Person[];
  slack: Person[];
}

export interface PlaygroundWorld {
  emulator: Emulator;
  discord: FakeDiscord;
  /**
   * Where the Discord pane acts: the seeded server's channel (the bot is a member), a server
   * that never added the bot and the DM with the bot, where every seeded person's own install
   * (a user install) brings the commands.
   */
  discordPlaces: DiscordPlace[];
  slack: FakeSlack;
  /** Where the fake Slack sends the Bolt app its signed requests. */
  slackEventsUrl: string;
  /** The bot's own HTTP server (on 127.0.0.1): Slack's requests, /healthz and /readyz. */
  botUrl: string;
  people: People;
  /** The bot's stores, for tests that check what a gesture saved. */
  stores: Stores;
  close(): Promise<void>;
}

/**
 * `scale` compresses the service's job durations and the bot's polling alike (0.1: an image
 * takes 2 s instead of 20 s).
 */
export async function startWorld(options: {
  scale: number;
  /** The bot's logger; silent when left out. */
  logger?: Logger;
}): Promise<PlaygroundWorld> {
  const { scale } = options;
  const emulator = await startEmulator({ timeScale: scale });
  emulator.account("test-key").creditsLimit = 1_000_000;
  const discord = await startFakeDiscord();
  const { channel: friends } = await discord.addGuild("Friends", { bot: false });
  for (const user of Object.values(discord.users)) discord.installForUser(user);
  const slack = await startFakeSlack({ keepUploads: true });
  const dir = mkdtempSync(join(tmpdir(), "playground-"));
  const core = await openBotCore({
    mediaUrl: emulator.url,
    dir,
    scale,
    // A key of its own each run, so that admins can try setup; nothing outlives the playground.
    secretsKey: randomBytes(32).toString("hex"),
    // The playground's people use the app's own install too (DMs, Friends), on the same key.
    apiKeyTenants: ["*", ...Object.values(discord.users).map((user) => user.id)],
    ...(options.logger && { logger: options.logger }),
  });
  const { bot, stores, logger } = core;
  const discordBot = await startDiscord({
    // Global commands, as in production: only those reach user installs and DMs.
    config: { token: discord.token, restUrl: discord.restUrl },
    bot,
    logger,
    store: stores.keyv("discord"),
    stores,
  });
  // The bot's server on the loopback only, as every server of the playground: nothing leaves the machine.
  const http = await startHttpServer({ port: 0, host: "127.0.0.1", logger });
  const readiness = new Readiness();
  readiness.watch("store", () => stores.availability.problem());
  for (const route of healthRoutes(readiness)) http.mount(route);
  const slackBot = await startSlack({
    http,
    config: { botToken: slack.botToken, signingSecret: slack.signingSecret, port: 0, apiUrl: slack.apiUrl },
    bot,
    logger,
    store: stores.keyv("slack"),
    claims: stores.claims,
  });
  readiness.watch("discord", discordBot.problem);
  readiness.watch("slack", slackBot.problem);
  await bot.start();
  if (!slackBot.eventsUrl) throw new Error("the Slack app did not open its HTTP endpoint");
  return {
    emulator,
    discord,
    discordPlaces: [
      { id: discord.channel.id, label: `# general · ${discord.guild.name}` },
      { id: friends.id, label: "# chat · Friends (no bot: your own install)" },
      { id: DM_PLACE, label: "✉ DM with media-bot" },
    ],
    slack,
    slackEventsUrl: slackBot.eventsUrl,
    botUrl: http.url,
    people: {
      discord: Object.values(discord.users).map((u) => ({ id: u.id, name: u.global_name ?? u.username })),
      slack: Object.values(slack.users).map((u) => ({ id: u.id, name: u.real_name || u.name })),
    },
    stores,
    async close() {
      await discordBot.stop();
      await slackBot.stop();
      await http.close();
      await core.close();
      await Promise.all([emulator.close(), discord.close(), slack.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
