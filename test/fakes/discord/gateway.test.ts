import { once } from "node:events";
import { ChannelType, Client, Events, GatewayIntentBits, type Interaction, Status } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loginClient } from "./client.js";
import { type FakeDiscord, shardOf, startFakeDiscord } from "./index.js";

let fake: FakeDiscord | undefined;
let client: Client<true> | undefined;

async function start(options: Parameters<typeof startFakeDiscord>[0] = {}) {
  const started = await startFakeDiscord(options);
  fake = started;
  client = await loginClient(started);
  return { fake: started, bot: client };
}

afterEach(async () => {
  await client?.destroy();
  client = undefined;
  await fake?.close();
  fake?.assertNoValidationErrors();
  fake = undefined;
});

const frames = (direction: "received" | "sent", op: number) =>
  fake?.gatewayFrames.filter((f) => f.direction === direction && f.op === op).length ?? 0;

async function registerPing(bot: Client<true>, guildId: string) {
  await bot.application.commands.set([{ name: "ping", description: "Answers pong" }], guildId);
}

describe("fake Discord gateway with the real discord.js client", () => {
  it("logs in to READY and GUILD_CREATE: the client sees the fake's guild, channel, roles and members", async () => {
    const { fake, bot } = await start();
    const guild = bot.guilds.cache.get(fake.guild.id);
    expect(guild?.name).toBe("Fake Guild");
    expect(guild?.channels.cache.get(fake.channel.id)?.type).toBe(ChannelType.GuildText);
    expect(guild?.roles.cache.get(fake.roles.admin.id)?.permissions.has("ManageGuild")).toBe(true);
    expect(guild?.members.cache.has(fake.users.admin.id)).toBe(true);
    expect(bot.user.id).toBe(fake.botUser.id);
    expect(bot.application.id).toBe(fake.applicationId);
    expect(fake.calls.map((c) => `${c.method} ${c.route} ${c.status}`)).toEqual(["GET /gateway/bot 200"]);
    expect(fake.gatewayFrames.slice(0, 4)).toEqual([
      { direction: "sent", op: 10 },
      { direction: "received", op: 2 },
      { direction: "sent", op: 0, t: "READY", s: 1 },
      { direction: "sent", op: 0, t: "GUILD_CREATE", s: 2 },
    ]);
  });

  it("refuses a wrong token on REST, so discord.js's login fails", async () => {
    fake = await startFakeDiscord();
    const bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.restUrl } });
    await expect(bot.login("not-the-token")).rejects.toThrow(/token/i);
    expect(fake.calls[0]).toMatchObject({ route: "/gateway/bot", status: 401 });
    await bot.destroy();
  });

  it("closes an IDENTIFY with a wrong token with 4004", async () => {
    fake = await startFakeDiscord();
    const socket = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json`);
    await once(socket, "message");
    socket.send(JSON.stringify({ op: 2, d: { token: "wrong", intents: 1, properties: {} } }));
    const [code] = await once(socket, "close");
    expect(code).toBe(4004);
  });

  it("acknowledges every heartbeat, so the connection lives on without reconnecting", async () => {
    const { fake, bot } = await start({ heartbeatIntervalMs: 30 });
    await fake.waitFor(() => frames("received", 1) >= 4);
    expect(frames("sent", 11)).toBeGreaterThanOrEqual(frames("received", 1) - 1);
    expect(frames("received", 2)).toBe(1);
    expect(frames("received", 6)).toBe(0);
    expect(bot.ws.status).toBe(Status.Ready);
    expect(bot.ws.ping).toBeGreaterThanOrEqual(0);
  });

  it("after a missed heartbeat ack discord.js resumes at resume_gateway_url and gets what it missed", async () => {
    const { fake, bot } = await start({ heartbeatIntervalMs: 30 });
    await registerPing(bot, fake.guild.id);
    fake.gateway.skipHeartbeatAcks(1);
    await fake.waitFor(() => !fake.gateway.connected);
    const arrived = once(bot, Events.InteractionCreate) as Promise<[Interaction]>;
    const injected = await fake.sendCommand({ name: "ping" });
    const [interaction] = await arrived;
    expect(interaction.id).toBe(injected.id);
    expect(frames("received", 6)).toBe(1);
    expect(frames("received", 2)).toBe(1);
    expect(fake.gatewayFrames.some((f) => f.t === "RESUMED")).toBe(true);
  });

  it("follows op 7 RECONNECT with a RESUME and delivers each event once", async () => {
    const { fake, bot } = await start();
    await registerPing(bot, fake.guild.id);
    const seen: string[] = [];
    bot.on(Events.InteractionCreate, (interaction) => {
      seen.push(interaction.id);
    });
    const before = await fake.sendCommand({ name: "ping" });
    await fake.waitFor(() => seen.length === 1);
    await fake.gateway.requestReconnect();
    const during = await fake.sendCommand({ name: "ping" });
    await fake.waitFor(() => seen.length === 2 && fake.gatewayFrames.some((f) => f.t === "RESUMED"));
    expect(seen).toEqual([before.id, during.id]);
    expect(frames("received", 6)).toBe(1);
  });

  it("lets client.destroy() end the session and closes without leaving sockets behind", async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r.startsWith("TCP")).length;
    const baseline = sockets();
    const { fake: local, bot } = await start();
    await registerPing(bot, local.guild.id);
    await bot.destroy();
    client = undefined;
    await expect(local.sendCommand({ name: "ping" })).rejects.toThrow(/no gateway session/);
    await local.close();
    fake = undefined;
    local.assertNoValidationErrors();
    await local.waitFor(() => sockets() <= baseline);
  });

  it("closes an IDENTIFY naming a shard outside its count with 4010", async () => {
    fake = await startFakeDiscord();
    const socket = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json`);
    await once(socket, "message");
    socket.send(
      JSON.stringify({ op: 2, d: { token: fake.token, intents: 1, properties: {}, shard: [2, 2] } }),
    );
    const [code] = await once(socket, "close");
    expect(code).toBe(4010);
  });

  it("gives each shard READY with its own guilds, and GUILD_CREATE only for them", async () => {
    fake = await startFakeDiscord({ maxConcurrency: 2 });
    const { guild: second } = await fake.addGuild("Second");
    const sharded = new Client({
      intents: [GatewayIntentBits.Guilds],
      rest: { api: fake.restUrl },
      shards: [0, 1],
      shardCount: 2,
    });
    client = sharded as Client<true>;
    const ready = once(sharded, Events.ClientReady);
    await sharded.login(fake.token);
    await ready;
    expect(fake.gateway.shards).toEqual([
      [0, 2],
      [1, 2],
    ]);
    for (const id of [fake.guild.id, second.id]) {
      expect(sharded.guilds.cache.get(id)?.shardId).toBe(shardOf(id, 2));
    }
    const creates = fake.gatewayFrames.filter((f) => f.direction === "sent" && f.t === "GUILD_CREATE");
    expect(creates).toHaveLength(2);
  });
});
