import { once } from "node:events";
import { Client, type ClientOptions, Events, GatewayIntentBits } from "discord.js";
import type { FakeDiscord } from "./index.js";

/** A real discord.js client logged in to the fake and past ClientReady (all GUILD_CREATEs seen). */
export async function loginClient(
  fake: FakeDiscord,
  options: Partial<ClientOptions> = {},
): Promise<Client<true>> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...options,
    rest: { ...options.rest, api: fake.restUrl },
  });
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  return client as Client<true>;
}
