/**
 * The playground's HTTP server on 127.0.0.1: the static page, the two channels rendered from the
 * fakes' state, the files the fakes hold, the user's gestures (gestures.ts), and /healthz.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LANGUAGE_NAMES } from "../../src/core/i18n/languages.js";
import { commandMenu } from "./discord-line.js";
import { type Body, CLIENT_LOCALES, createGestures, HttpError } from "./gestures.js";
import type { Person } from "./mentions.js";
import { discordChannel, discordModal } from "./render/discord.js";
import { slackChannel, slackDirect, slackHome, slackModal } from "./render/slack.js";
import { stepForms, stepRuns } from "./render/steps.js";
import { slackMenu } from "./slack-line.js";
import { DM_PLACE, type PlaygroundWorld } from "./world.js";

const STATIC: Record<string, string> = {
  "/": "index.html",
  "/page.js": "page.js",
  "/page.css": "page.css",
};
const TYPES: Record<string, string> = { html: "text/html", js: "text/javascript", css: "text/css" };
/** Form files arrive base64-encoded in JSON; Discord's own per-file limit is 10 MiB. */
const BODY_LIMIT = 40 * 1024 * 1024;

export interface PlaygroundServer {
  url: string;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new HttpError(413, "too large");
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Body;
}

export async function startServer(world: PlaygroundWorld, port = 0): Promise<PlaygroundServer> {
  const { discord, slack } = world;
  const { people } = world;
  const names = (list: readonly Person[], bot: string) =>
    Object.fromEntries([[bot, "media-bot"], ...list.map((p) => [p.id, p.name])]) as Record<string, string>;
  const discordNames = names(people.discord, discord.botUser.id);
  const slackNames = names(people.slack, slack.botUserId);
  const fileOrigins = [discord.restUrl, slack.apiUrl, world.emulator.url].map((u) => new URL(u).origin);

  const { actions, openDiscordModal: openModal } = createGestures(world);

  function openDiscordModal(userId: string) {
    const open = openModal(userId);
    return open ? { key: open.interactionId, html: discordModal(open.modal) } : null;
  }

  function openSlackView(userId: string) {
    const view = slack.views.filter((v) => v.open && v.user === userId).at(-1);
    return view ? { key: `${view.id}:${view.hash}`, html: slackModal(view, slackNames) } : null;
  }

  /** The bot's DM with each person it opened one with, by user id. */
  const directs = new Map<string, string>();

  /**
   * The bot's DM with `user`, once the bot has opened one (private answers with files go there).
   * conversations.open gives the same channel every time, so asking the fake finds it.
   */
  async function directChannel(user: string): Promise<string | undefined> {
    const known = directs.get(user);
    if (known) return known;
    const opened = slack.calls.some(
      (c) => c.method === "conversations.open" && c.answered.ok && c.args.users === user,
    );
    if (!opened) return undefined;
    const answer = await fetch(`${slack.apiUrl}conversations.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${slack.botToken}` },
      body: new URLSearchParams({ users: user }),
    });
    const id = ((await answer.json()) as { channel?: { id?: string } }).channel?.id;
    if (id) directs.set(user, id);
    return id;
  }

  /** The channels as the two people the page acts as see them (ephemeral messages, modals, DMs). */
  async function state(as: { discord: string; slack: string; place: string }) {
    const channel =
      as.place === DM_PLACE
        ? discord.dmChannel(as.discord)
        : world.discordPlaces.some((p) => p.id === as.place)
          ? as.place
          : discord.channel.id;
    const seen = (m: { flags?: number; interaction_metadata?: { user: { id: string } } }) =>
      !((m.flags ?? 0) & 64) || m.interaction_metadata?.user.id === as.discord;
    const directId = await directChannel(as.slack);
    const dm = directId ? slack.messages(directId) : [];
    return {
      discord: {
        html: discordChannel(discord.messages(channel).filter(seen), discordNames),
        modal: openDiscordModal(as.discord),
      },
      slack: {
        html: slackChannel(
          slack.messages(),
          slack.ephemerals().filter((m) => m.user === as.slack),
          slackNames,
          "media-bot",
        ),
        direct: slackDirect(dm, slackNames, "media-bot", as.slack),
        home: slackHome(slack.home(as.slack), slackNames),
        runs: stepRuns(slack.executions, as.slack),
        /** Top-level messages in the DM, for the page's count of new ones. */
        directCount: dm.filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts).length,
        modal: openSlackView(as.slack),
      },
    };
  }

  /** A file of the fakes; a part of it when the browser asks for one (a video's player does). */
  async function file(req: IncomingMessage, res: ServerResponse, url: string) {
    const target = URL.canParse(url) ? new URL(url) : undefined;
    if (!target || !fileOrigins.includes(target.origin)) throw new HttpError(404, "not a file of the fakes");
    const bearer =
      target.origin === new URL(slack.apiUrl).origin
        ? { authorization: `Bearer ${slack.botToken}` }
        : undefined;
    const answer = await fetch(target, { headers: bearer });
    const bytes = Buffer.from(await answer.arrayBuffer());
    const headers = {
      "content-type": answer.headers.get("content-type") ?? "application/octet-stream",
      "accept-ranges": "bytes",
    };
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!answer.ok || !range || (range[1] === "" && range[2] === "")) {
      res.writeHead(answer.status, headers).end(bytes);
      return;
    }
    // "bytes=a-b", "bytes=a-" or the last n bytes, "bytes=-n".
    const start = range[1] === "" ? Math.max(0, bytes.length - Number(range[2])) : Number(range[1]);
    const end =
      range[1] !== "" && range[2] !== "" ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
    if (start > end) {
      res.writeHead(416, { "content-range": `bytes */${bytes.length}` }).end();
      return;
    }
    res
      .writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${bytes.length}` })
      .end(bytes.subarray(start, end + 1));
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.method === "GET" && STATIC[url.pathname]) {
      const name = STATIC[url.pathname]!;
      const body = await readFile(new URL(`./static/${name}`, import.meta.url));
      res.writeHead(200, { "content-type": `${TYPES[name.split(".").pop()!]}; charset=utf-8` }).end(body);
    } else if (req.method === "GET" && url.pathname === "/api/state") {
      const as = (platform: "discord" | "slack") => url.searchParams.get(platform) ?? people[platform][0]!.id;
      json(
        200,
        await state({
          discord: as("discord"),
          slack: as("slack"),
          place: url.searchParams.get("place") ?? discord.channel.id,
        }),
      );
    } else if (req.method === "GET" && url.pathname === "/api/page")
      json(200, {
        menus: { discord: commandMenu(discord.commands()), slack: slackMenu() },
        steps: stepForms(),
        people,
        places: world.discordPlaces,
        languages: CLIENT_LOCALES.map(({ id }) => ({ id, name: LANGUAGE_NAMES[id] })),
      });
    else if (req.method === "GET" && url.pathname === "/file")
      await file(req, res, url.searchParams.get("url") ?? "");
    else if (req.method === "GET" && url.pathname === "/healthz") json(200, { status: "ok" });
    else if (req.method === "POST" && url.pathname.startsWith("/api/") && actions[url.pathname.slice(5)])
      json(200, (await actions[url.pathname.slice(5)]!(await readJson(req))) ?? {});
    else json(404, { error: "not found" });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // What the fakes refuse (a command that is not registered, a missing option) is what the
      // user's client would have refused: the page shows it next to the command box.
      const status = error instanceof HttpError ? error.status : 400;
      const message = (error as Error).message.replace(/^fake (Discord|Slack): /, "");
      if (res.headersSent) res.destroy();
      else
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
