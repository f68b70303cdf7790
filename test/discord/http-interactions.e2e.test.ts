import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INTERACTIONS_PATH } from "../../src/discord/http/index.js";
import { startDiscord } from "../../src/discord/index.js";
import type { InjectedInteraction } from "../fakes/discord/index.js";
import { until } from "../main-process.js";
import { jobsSettled } from "../settled.js";
import { type DiscordWorld, discordWorldPerFile, ended, shown, silent } from "./harness.js";

/**
 * Discord over HTTP interactions: the fake Discord POSTs every interaction, signed, to the bot's
 * POST /discord/interactions (its Interactions Endpoint URL) instead of the gateway, and judges
 * the answers as Discord does. The bot opens no gateway connection; the same handlers answer, and
 * their first response (a defer, a modal, the choices) is the body of the 200 that answers the
 * request, with no callback request; what follows (edits of @original, follow-ups) goes by REST.
 */

let world: DiscordWorld;

discordWorldPerFile(
  (started) => {
    world = started;
  },
  { interactions: "http" },
);

const endpoint = () => `${world.http!.url}${INTERACTIONS_PATH}`;

function post(body: string, headers: Record<string, string>) {
  return fetch(endpoint(), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** The endpoint's answer to an interaction, as Discord received it. */
const httpStatus = (interaction: InjectedInteraction) =>
  world.until(() => world.fake.interaction(interaction.id)?.http?.status);

/** The interaction's first responses: their types and how each came (in the 200's body, or by callback). */
const firstResponses = (interaction: InjectedInteraction) =>
  world.fake.callbacks(interaction.id).map((c) => [c.type, c.via]);

/** REST requests to the interaction's callback endpoint: none when the first response was in the body. */
const callbackRequests = (interaction: InjectedInteraction) =>
  world.fake.calls.filter((c) => c.path.startsWith(`/interactions/${interaction.id}/`));

const ping = JSON.stringify({ id: "1", application_id: "2", type: 1, token: "t", version: 1 });

describe("POST /discord/interactions", () => {
  it("answers a signed PING with PONG, in JSON", async () => {
    const response = await post(ping, { ...world.fake.signatureHeaders(ping) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ type: 1 });
  });

  it("refuses with 401 a request without a signature, with a bad one, or signed by another key", async () => {
    expect((await post(ping, {})).status).toBe(401);
    const { "x-signature-timestamp": timestamp } = world.fake.signatureHeaders(ping);
    expect((await post(ping, { "x-signature-timestamp": timestamp })).status).toBe(401);
    // Signed for another body: what a tampered request carries.
    expect((await post(ping, { ...world.fake.signatureHeaders(`${ping} `) })).status).toBe(401);
    expect(
      (await post(ping, { "x-signature-ed25519": "zz", "x-signature-timestamp": timestamp })).status,
    ).toBe(401);
    const stranger = generateKeyPairSync("ed25519").privateKey;
    const forged = sign(null, Buffer.from(timestamp + ping), stranger).toString("hex");
    expect(
      (await post(ping, { "x-signature-ed25519": forged, "x-signature-timestamp": timestamp })).status,
    ).toBe(401);
  });

  it("refuses a request Discord signed more than five minutes ago (a replay)", async () => {
    const old = String(Math.floor(world.fake.clock.now() / 1000) - 6 * 60);
    expect((await post(ping, { ...world.fake.signatureHeaders(ping, old) })).status).toBe(401);
    const recent = String(Math.floor(world.fake.clock.now() / 1000) - 60);
    expect((await post(ping, { ...world.fake.signatureHeaders(ping, recent) })).status).toBe(200);
  });

  it("refuses a signed body that is not JSON with 400, and one over a megabyte with 413", async () => {
    const text = "not json";
    expect((await post(text, { ...world.fake.signatureHeaders(text) })).status).toBe(400);
    const huge = JSON.stringify({ type: 2, padding: "x".repeat(1_100_000) });
    expect((await post(huge, { ...world.fake.signatureHeaders(huge) })).status).toBe(413);
  });

  it("will not start with a public key that is not the application's, nor with a refused token", async () => {
    const start = (token: string, publicKey: string) =>
      startDiscord({
        config: { token, restUrl: world.fake.restUrl, publicKey },
        // The world's bot, but keeping its own adapter: these starts fail before serving anything.
        bot: Object.assign(Object.create(world.bot), { attach: () => undefined }),
        logger: silent,
        store: world.stores.keyv("discord-other"),
        stores: world.stores,
        http: world.http!,
      });
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
    await expect(start(world.fake.token, other.subarray(-32).toString("hex"))).rejects.toThrow(
      /^DISCORD_PUBLIC_KEY is not the Public Key of the application/,
    );
    await expect(start(`${world.fake.token.slice(0, -6)}WRONG0`, world.fake.publicKey)).rejects.toThrow(
      /^DISCORD_TOKEN was refused by Discord/,
    );
  });
});

describe("commands, clicks, autocomplete and forms over HTTP", () => {
  it("opens no gateway connection", () => {
    expect(world.fake.gateway.connected).toBe(false);
    expect(world.fake.gatewayFrames).toEqual([]);
    expect(world.discord.problem()).toBeUndefined();
  });

  it("runs a slash command: the defer in the 200's body, no callback, and the result posted once", async () => {
    const notices = world.notices().length;
    const command = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a red fox" },
    });
    expect(await httpStatus(command)).toBe(200);
    expect(firstResponses(command)).toEqual([[5, "body"]]);
    expect(callbackRequests(command)).toEqual([]);
    const message = await world.jobMessage(command);
    expect(ended(message)).toBe(true);
    expect(message.attachments).toHaveLength(1);
    expect(world.creations("/api/image/generate")).toHaveLength(1);
    await world.until(() => world.notices().length > notices);
    // Delivered on record and owned by no one: a second delivery would show by then.
    await until(
      () => jobsSettled(world.stores, [{ platform: "discord", tenantId: world.fake.guild.id }]),
      15_000,
      () => "every job delivered and released",
    );
    expect(world.notices()).toHaveLength(notices + 1);
    const results = world.fake
      .messages()
      .filter((m) => m.attachments.some((a) => a.content_type === "image/png"));
    expect(results.map((m) => m.id)).toEqual([message.id]);
  });

  it("takes a button click: Regenerate starts a new job from the result's message", async () => {
    const command = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a blue owl" },
    });
    const message = await world.jobMessage(command);
    const before = world.creations("/api/image/generate").length;
    const click = await world.fake.clickButton(message, world.controlId(message, "regenerate"));
    expect(await httpStatus(click)).toBe(200);
    expect(firstResponses(click)).toEqual([[6, "body"]]);
    expect(callbackRequests(click)).toEqual([]);
    await world.until(() => world.creations("/api/image/generate").length > before);
    const fresh = await world.until(() =>
      world.fake
        .messages()
        .find((m) => m.id !== message.id && m.embeds[0]?.title === message.embeds[0]?.title && ended(m)),
    );
    expect(fresh.attachments).toHaveLength(1);
  });

  it("answers autocomplete with the cached choices in the 200's body", async () => {
    const typed = await world.fake.sendAutocomplete({
      name: "video",
      subcommand: "avatar",
      focused: "avatar",
      value: "so",
      options: { script: "hi" },
    });
    expect(await httpStatus(typed)).toBe(200);
    const callback = await world.firstResponse(typed);
    expect([callback.type, callback.via]).toEqual([8, "body"]);
    expect(callbackRequests(typed)).toEqual([]);
    const choices = (callback.data as { choices: { value: string }[] }).choices;
    expect(choices.map((c) => c.value)).toEqual(["cm2yb1p8e000cl0qg5t9r4kxm"]);
  });

  it("shows a command's modal and runs the command with what was typed in it", async () => {
    const command = await world.command({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: "Ava" },
    });
    expect(await httpStatus(command)).toBe(200);
    const modal = await world.firstResponse(command);
    expect([modal.type, modal.via]).toEqual([9, "body"]);
    expect(callbackRequests(command)).toEqual([]);
    const submitted = await world.fake.submitModal((modal.data as { custom_id: string }).custom_id, {
      gender: "female",
      age: "30s",
      ethnicity: "",
      outfit: "navy suit",
      background: "office",
    });
    expect(await httpStatus(submitted)).toBe(200);
    expect(firstResponses(submitted)).toEqual([[5, "body"]]);
    expect(callbackRequests(submitted)).toEqual([]);
    const variants = await world.jobMessage(submitted, (m) => m.embeds.length === 3);
    expect(variants.embeds.map((e) => e.title)).toEqual(["Photo avatar: Ava", "Variant 1", "Variant 2"]);
    expect(world.creations("/api/avatar/design/create")[0]?.json).toMatchObject({ name: "Ava" });
  });

  it("takes a message command (Apps > Edit image) and its form", async () => {
    const picture = world.png("cat.png", [10, 120, 200]);
    const posted = world.fake.postAsUser({ user: world.fake.users.requester, files: [picture] });
    const used = await world.fake.useMessageCommand({ name: "Edit image", message: posted });
    expect(await httpStatus(used)).toBe(200);
    const modal = await world.firstResponse(used);
    expect([modal.type, modal.via]).toEqual([9, "body"]);
    const submitted = await world.fake.submitModal((modal.data as { custom_id: string }).custom_id, {
      prompt: "give the cat a hat",
    });
    expect(await httpStatus(submitted)).toBe(200);
    expect(firstResponses(submitted)).toEqual([[5, "body"]]);
    expect(shown(await world.jobMessage(submitted))).toContain("Image: give the cat a hat");
  });
});
