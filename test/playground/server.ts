/**
 * The playground's HTTP server on 127.0.0.1: the static page, the two channels rendered from the
 * fakes' state, and the user's gestures turned into what the fakes do when a real user acts
 * (an INTERACTION_CREATE over the fake Discord's gateway, a signed request from the fake Slack to
 * the Bolt app). Files are read from the fakes that hold them.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeFile } from "../fakes/discord/index.js";
import type { InputValue, SlackFile } from "../fakes/slack/index.js";
import { commandMenu, parseLine } from "./discord-line.js";
import { discordChannel, discordModal } from "./render/discord.js";
import { slackChannel, slackModal } from "./render/slack.js";
import { slackMenu } from "./slack-line.js";
import type { PlaygroundWorld } from "./world.js";

const STATIC: Record<string, string> = {
  "/": "index.html",
  "/page.js": "page.js",
  "/page.css": "page.css",
};
const TYPES: Record<string, string> = { html: "text/html", js: "text/javascript", css: "text/css" };
/** Discord's client gives up on suggestions after about three seconds. */
const AUTOCOMPLETE_WAIT_MS = 3_000;
/** Form files arrive base64-encoded in JSON; Discord's own per-file limit is 10 MiB. */
const BODY_LIMIT = 40 * 1024 * 1024;

/** A file the page sends: what the user picked in a file input. */
interface PageFile {
  name: string;
  type: string;
  data: string;
}

type Body = Record<string, unknown>;

export interface PlaygroundServer {
  url: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
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

const fakeFile = (f: PageFile): FakeFile => ({
  name: f.name,
  ...(f.type && { contentType: f.type }),
  data: Buffer.from(f.data, "base64"),
});

export async function startServer(world: PlaygroundWorld, port = 0): Promise<PlaygroundServer> {
  const { discord, slack } = world;
  /** Interactions the page started, newest last: the modals the bot answered them with. */
  const interactions: string[] = [];
  const discordNames: Record<string, string> = { [discord.botUser.id]: "media-bot" };
  for (const user of Object.values(discord.users)) discordNames[user.id] = user.global_name ?? user.username;
  const slackNames: Record<string, string> = { [slack.botUserId]: "media-bot", bot: "media-bot" };
  for (const user of Object.values(slack.users)) slackNames[user.id] = user.real_name || user.name;
  const requester = { discord: discord.users.requester.id, slack: slack.users.requester.id };
  const fileOrigins = [discord.restUrl, slack.apiUrl, world.emulator.url].map((u) => new URL(u).origin);

  const track = async (started: Promise<{ id: string }>) => {
    interactions.push((await started).id);
  };

  function openDiscordModal() {
    for (const id of [...interactions].reverse()) {
      const record = discord.interaction(id);
      if (record?.modal && !record.modalSubmitted) return { key: id, html: discordModal(record.modal) };
    }
    return null;
  }

  function openSlackView() {
    const view = slack.views.filter((v) => v.open && v.user === requester.slack).at(-1);
    return view ? { key: `${view.id}:${view.hash}`, html: slackModal(view, slackNames) } : null;
  }

  function state() {
    const seen = (m: { flags?: number; interaction_metadata?: { user: { id: string } } }) =>
      !((m.flags ?? 0) & 64) || m.interaction_metadata?.user.id === requester.discord;
    return {
      discord: {
        html: discordChannel(discord.messages().filter(seen), discordNames),
        modal: openDiscordModal(),
      },
      slack: {
        html: slackChannel(
          slack.messages(),
          slack.ephemerals().filter((m) => m.user === requester.slack),
          slackNames,
        ),
        modal: openSlackView(),
      },
    };
  }

  const slackValues = (values: Record<string, string | string[] | PageFile[]>) => {
    const out: Record<string, InputValue> = {};
    for (const [id, value] of Object.entries(values)) {
      const files = Array.isArray(value) && value.some((v) => typeof v === "object");
      out[id] = files
        ? (value as PageFile[]).map(
            (f): SlackFile =>
              slack.addUserFile(Buffer.from(f.data, "base64"), {
                name: f.name,
                mimetype: f.type || "application/octet-stream",
              }),
          )
        : (value as string | string[]);
    }
    return out;
  };

  const actions: Record<string, (body: Body) => Promise<unknown>> = {
    async "discord/command"(body) {
      const files = ((body.files as PageFile[] | undefined) ?? []).map(fakeFile);
      await track(
        discord.sendCommand(parseLine(String(body.line), discord.commands(discord.guild.id), files)),
      );
    },
    /** What the bot suggests for the option being typed, as Discord's client asks it. */
    async "discord/autocomplete"(body) {
      const { attachments: _none, ...input } = parseLine(
        String(body.line),
        discord.commands(discord.guild.id),
        [],
        { partial: true },
      );
      const sent = await discord.sendAutocomplete({
        ...input,
        focused: String(body.option),
        value: String(body.value),
      });
      const answer = await discord.waitFor(
        () => discord.callbacks(sent.id).find((c) => c.type === 8),
        AUTOCOMPLETE_WAIT_MS,
      );
      return { choices: (answer.data as { choices?: unknown[] }).choices ?? [] };
    },
    async "discord/button"(body) {
      await track(discord.clickButton(String(body.message), String(body.custom)));
    },
    async "discord/select"(body) {
      await track(discord.selectMenu(String(body.message), String(body.custom), body.values as string[]));
    },
    async "discord/modal"(body) {
      const fields: Record<string, string | string[] | FakeFile[]> = {};
      for (const [id, value] of Object.entries(body.fields as Record<string, unknown>)) {
        fields[id] =
          Array.isArray(value) && value.some((v) => typeof v === "object")
            ? (value as PageFile[]).map(fakeFile)
            : (value as string | string[]);
      }
      await track(discord.submitModal(String(body.custom), fields));
    },
    async "slack/command"(body) {
      const match = /^\s*(\/\S+)\s*([\s\S]*)$/.exec(String(body.line));
      if (match?.[1] !== "/media") throw new HttpError(400, `${match?.[1] ?? "That"} is not a valid command`);
      await slack.slashCommand(world.slackEventsUrl, { text: match[2]!.trim() });
    },
    async "slack/action"(body) {
      await slack.blockAction(world.slackEventsUrl, {
        actionId: String(body.action),
        message: String(body.message),
        ...(typeof body.value === "string" && { value: body.value }),
        ...(typeof body.block === "string" && { blockId: body.block }),
      });
    },
    async "slack/view"(body) {
      const values = slackValues(body.values as Record<string, string | string[] | PageFile[]>);
      const answer = await slack.viewSubmission(world.slackEventsUrl, { viewId: String(body.view), values });
      const errors = (answer.body as { errors?: Record<string, string> } | undefined)?.errors;
      return errors ? { errors } : {};
    },
  };

  async function file(res: ServerResponse, url: string) {
    const target = URL.canParse(url) ? new URL(url) : undefined;
    if (!target || !fileOrigins.includes(target.origin)) throw new HttpError(404, "not a file of the fakes");
    const bearer =
      target.origin === new URL(slack.apiUrl).origin
        ? { authorization: `Bearer ${slack.botToken}` }
        : undefined;
    const answer = await fetch(target, { headers: bearer });
    const bytes = Buffer.from(await answer.arrayBuffer());
    res
      .writeHead(answer.status, {
        "content-type": answer.headers.get("content-type") ?? "application/octet-stream",
      })
      .end(bytes);
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.method === "GET" && STATIC[url.pathname]) {
      const name = STATIC[url.pathname]!;
      const body = await readFile(new URL(`./static/${name}`, import.meta.url));
      res.writeHead(200, { "content-type": `${TYPES[name.split(".").pop()!]}; charset=utf-8` }).end(body);
    } else if (req.method === "GET" && url.pathname === "/api/state") json(200, state());
    else if (req.method === "GET" && url.pathname === "/api/commands")
      json(200, { discord: commandMenu(discord.commands(discord.guild.id)), slack: slackMenu() });
    else if (req.method === "GET" && url.pathname === "/file")
      await file(res, url.searchParams.get("url") ?? "");
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
