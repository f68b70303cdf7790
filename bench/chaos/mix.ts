/**
 * The commands of the chaos campaign: every job kind on both platforms, sent as a user would, each
 * with a tag ("chaos-17") at the start of its prompt or name, so that the creation calls the
 * service saw and the results the chat shows are counted per command. A photo-avatar design is
 * followed by a click on Keep 1 or Keep both once its variants are shown.
 */
import type { APIMessage } from "discord-api-types/v10";
import { decodeControlId } from "../../src/discord/custom-id.js";
import type { CrashWorld, Instance } from "../../test/crash-world.js";
import type { InjectedInteraction } from "../../test/fakes/discord/index.js";
import { solidPng } from "../../test/fakes/media-api/png.js";
import { until } from "../../test/main-process.js";

export type Platform = "discord" | "slack";

/** A stored avatar of the emulator's test account, with a voice of its own. */
const AVATAR = "cm2yaz9j10008l0qg9npyjgs3";
/** How long a user waits for "thinking…" (Discord) or Slack's answer before calling it lost. */
const ACK_MS = 5_000;
/** How long the variants of a design may take to show and be kept, restarts included. */
const VARIANTS_MS = 90_000;
/** How long a user waits for the buttons to go after a click the bot answered before clicking again. */
const RECLICK_MS = 8_000;

export interface Traffic {
  world: CrashWorld;
  /** A running instance to send to (waits while the bot restarts); several take turns. */
  live(): Promise<Instance>;
  /** Ends waits of commands still driving when the campaign is over. */
  readonly over: boolean;
  /** Who sends the command `pick`: users take turns, so that the per-user job limit stays out of the way. */
  user(platform: Platform, pick: number): string;
}

export interface Scenario {
  name: string;
  platform: Platform;
  /** Whether the command uploads a file / makes a confirm call (the moments it offers). */
  upload?: boolean;
  confirm?: boolean;
  /** Sends the command (and its click); false when the bot never acknowledged it. */
  run(traffic: Traffic, tag: string, pick: number): Promise<boolean>;
}

/**
 * Twice as many users on each chat as commands in flight, taking turns: the per-user job limit
 * never refuses a command.
 */
export function takingTurns(world: CrashWorld, inFlight: number, prefix: string): Traffic["user"] {
  const users = {
    discord: Array.from({ length: 2 * inFlight }, (_, i) => world.discord?.addUser(`${prefix}${i}`).id ?? ""),
    slack: Array.from({ length: 2 * inFlight }, (_, i) => world.slack.addUser(`${prefix}${i}`).id),
  };
  return (platform, pick) => users[platform][pick % users[platform].length]!;
}

/** A Slack job message (its footer names the job) whose header shows `tag`. */
function slackJobMessage(traffic: Traffic, tag: string) {
  return traffic.world.slack.messages().find((m) => {
    const blocks = JSON.stringify(m.blocks);
    return /"text":"Job [\w-]+"/.test(blocks) && new RegExp(`\\b${tag}\\b`).test(blocks);
  });
}

const png = (seed: number) => solidPng([seed % 256, 80, 160]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settles(check: () => boolean, ms: number): Promise<boolean> {
  return until(check, ms, () => "").then(
    () => true,
    () => false,
  );
}

// ---- Discord --------------------------------------------------------------------------------

type DiscordInput = Parameters<NonNullable<CrashWorld["discord"]>["sendCommand"]>[0];

/** Injects an interaction once an instance runs, and says whether the bot answered it. */
async function discordAcked(
  traffic: Traffic,
  send: () => Promise<InjectedInteraction>,
): Promise<InjectedInteraction | undefined> {
  const fake = traffic.world.discord!;
  await traffic.live();
  const interaction = await Promise.race([send(), sleep(ACK_MS).then(() => undefined)]);
  if (!interaction) return undefined;
  return (await settles(() => fake.callbacks(interaction.id).length > 0, ACK_MS)) ? interaction : undefined;
}

function discordCommand(input: (tag: string, pick: number) => DiscordInput): Scenario["run"] {
  return async (traffic, tag, pick) => {
    const user = traffic.user("discord", pick);
    return Boolean(
      await discordAcked(traffic, () => traffic.world.discord!.sendCommand({ ...input(tag, pick), user })),
    );
  };
}

function controlOf(message: APIMessage, action: string, value?: string): string | undefined {
  const ids = [...JSON.stringify(message.components ?? []).matchAll(/"custom_id":"([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  return ids.find((id) => {
    const control = decodeControlId(id);
    return control?.action === action && control.value === value;
  });
}

async function discordDesign(traffic: Traffic, tag: string, pick: number): Promise<boolean> {
  const fake = traffic.world.discord!;
  const command = await discordAcked(traffic, () =>
    fake.sendCommand({
      name: "photo_avatar",
      subcommand: "design",
      options: { name: tag },
      user: traffic.user("discord", pick),
    }),
  );
  if (!command) return false;
  const modal = fake.callbacks(command.id)[0]?.data as { custom_id?: string } | undefined;
  if (!modal?.custom_id) return false;
  const submitted = await discordAcked(traffic, () =>
    fake.submitModal(modal.custom_id!, {
      gender: "female",
      age: "",
      ethnicity: "",
      outfit: "",
      background: "",
    }),
  );
  if (!submitted) return false;
  const [action, value] = pick % 2 === 0 ? ["confirm", "1"] : ["confirm_both", undefined];
  const offered = () => {
    const original = fake.original(submitted.id);
    return original && controlOf(original, action!, value) ? original : undefined;
  };
  await keepUntilDone(traffic, tag, offered, async (message) =>
    Boolean(
      await discordAcked(traffic, () =>
        fake.clickButton(message, controlOf(message, action!, value)!, traffic.user("discord", pick)),
      ),
    ),
  );
  return true;
}

/**
 * Clicks Keep as a user would until the result comes: once the variants offer it, again when
 * the bot did not answer the click (it was being killed), and again when the buttons are still,
 * or again, offered a while after an answered click (a kill swallowed the click before it reached
 * the service, or the service's status showed the variants again after an unanswered confirm).
 */
async function keepUntilDone<T>(
  traffic: Traffic,
  tag: string,
  offered: () => T | undefined,
  click: (control: T) => Promise<boolean>,
): Promise<void> {
  let clickedAt = Number.NEGATIVE_INFINITY;
  const end = Date.now() + VARIANTS_MS;
  while (!traffic.over && Date.now() < end && !postedResults(traffic.world).has(tag)) {
    const control = offered();
    if (control && Date.now() - clickedAt > RECLICK_MS) {
      const answered = await click(control);
      clickedAt = answered ? Date.now() : Number.NEGATIVE_INFINITY;
    }
    await sleep(250);
  }
}

// ---- Slack ----------------------------------------------------------------------------------

async function slackCommand(traffic: Traffic, text: string, pick: number): Promise<boolean> {
  const instance = await traffic.live();
  const user = traffic.user("slack", pick);
  const answer = await traffic.world.slack
    .slashCommand(instance.slackEventsUrl, { text, user })
    .catch(() => undefined);
  return answer?.status === 200;
}

async function slackEdit(traffic: Traffic, tag: string, pick: number): Promise<boolean> {
  const fake = traffic.world.slack;
  const prompt = `${tag} a party hat on the fox`;
  if (!(await slackCommand(traffic, `image edit ${prompt}`, pick))) return false;
  const view = await until(
    () => fake.views.find((v) => new RegExp(`\\b${tag}\\b`).test(JSON.stringify(v))),
    ACK_MS,
    () => `form of ${tag}`,
  ).catch(() => undefined);
  if (!view) return false;
  const file = fake.addUserFile(png(pick), { name: "fox.png", mimetype: "image/png" });
  const instance = await traffic.live();
  const answer = await fake
    .viewSubmission(instance.slackEventsUrl, {
      viewId: view.id,
      values: { image: [file], prompt },
      user: view.user,
    })
    .catch(() => undefined);
  return answer?.status === 200;
}

async function slackDesign(traffic: Traffic, tag: string, pick: number): Promise<boolean> {
  const fake = traffic.world.slack;
  if (!(await slackCommand(traffic, `photo_avatar design ${tag} --gender female`, pick))) return false;
  const keep = (id: string) => (pick % 2 === 0 ? id.endsWith(":1") : id.startsWith("media:confirm_both:"));
  const offered = () => {
    const message = slackJobMessage(traffic, tag);
    const id =
      message &&
      [...JSON.stringify(message.blocks).matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1]!).find(keep);
    return message && id ? { ts: message.ts, id } : undefined;
  };
  await keepUntilDone(traffic, tag, offered, async (action) => {
    const instance = await traffic.live();
    const answer = await fake
      .blockAction(instance.slackEventsUrl, {
        actionId: action.id,
        message: action.ts,
        user: traffic.user("slack", pick),
      })
      .catch(() => undefined);
    return answer?.status === 200;
  });
  return true;
}

// ---- the mix --------------------------------------------------------------------------------

export const SCENARIOS: Scenario[] = [
  {
    name: "image generate",
    platform: "discord",
    run: discordCommand((tag) => ({
      name: "image",
      subcommand: "generate",
      options: { prompt: `${tag} a red fox` },
    })),
  },
  {
    name: "image generate",
    platform: "slack",
    run: (traffic, tag, pick) => slackCommand(traffic, `image generate ${tag} a red fox`, pick),
  },
  {
    name: "image edit (file)",
    platform: "discord",
    upload: true,
    run: discordCommand((tag, pick) => ({
      name: "image",
      subcommand: "edit",
      options: { prompt: `${tag} a party hat on the fox` },
      attachments: [{ name: "fox.png", contentType: "image/png", data: png(pick), option: "image" }],
    })),
  },
  { name: "image edit (file)", platform: "slack", upload: true, run: slackEdit },
  {
    name: "avatar video",
    platform: "discord",
    run: discordCommand((tag) => ({
      name: "video",
      subcommand: "avatar",
      options: { avatar: AVATAR, script: `${tag} hello there` },
    })),
  },
  {
    name: "avatar video",
    platform: "slack",
    run: (traffic, tag, pick) =>
      slackCommand(traffic, `video avatar ${tag} hello there --avatar ${AVATAR}`, pick),
  },
  {
    name: "cinematic video (first frame file)",
    platform: "discord",
    upload: true,
    run: discordCommand((tag, pick) => ({
      name: "video",
      subcommand: "cinematic",
      options: { prompt: `${tag} waves at dusk`, duration: 5 },
      attachments: [{ name: "frame.png", contentType: "image/png", data: png(pick), option: "first_frame" }],
    })),
  },
  {
    name: "cinematic video",
    platform: "slack",
    run: (traffic, tag, pick) =>
      slackCommand(traffic, `video cinematic ${tag} waves at dusk --duration 5`, pick),
  },
  { name: "photo-avatar design + keep", platform: "discord", confirm: true, run: discordDesign },
  { name: "photo-avatar design + keep", platform: "slack", confirm: true, run: slackDesign },
  {
    name: "mockup asset",
    platform: "discord",
    run: discordCommand((tag) => ({
      name: "mockup",
      subcommand: "asset",
      options: { prompt: `${tag} a coffee cup`, type: "product" },
    })),
  },
  {
    name: "mockup asset",
    platform: "slack",
    run: (traffic, tag, pick) =>
      slackCommand(traffic, `mockup asset ${tag} a coffee cup --type product`, pick),
  },
  {
    name: "thumbnail",
    platform: "discord",
    run: discordCommand((tag) => ({
      name: "thumbnail",
      subcommand: "generate",
      options: { prompt: `${tag} a bold title` },
    })),
  },
  {
    name: "thumbnail",
    platform: "slack",
    run: (traffic, tag, pick) => slackCommand(traffic, `thumbnail generate ${tag} a bold title`, pick),
  },
];

/**
 * The order commands are sent in: every scenario, and those that offer the rarer moments (an
 * upload, a confirm) once more, so that each moment comes about as often as the others.
 */
export function weighted(scenarios: Scenario[]): Scenario[] {
  return [...scenarios, ...scenarios.filter((s) => s.upload || s.confirm)];
}

/** Creation calls of the service (confirms apart: they create nothing that costs). */
export const CREATION_PATH =
  /^\/api\/(image\/(generate|edit|inpaint)|video\/create|video\/cinematic\/create|avatar\/design\/create|avatar\/from-selfie\/(create|enhance)|mockup\/(generate|video|asset\/generate|asset\/edit)|thumbnail\/generate)$/;
export const CONFIRM_PATH = /^\/api\/avatar\/design\/confirm(-both)?$/;
export const UPLOAD_PATH = /^\/api\/media\/(initialize|finalize)$/;

/** The tag a text starts a title with, e.g. "Image: chaos-17 a red fox is ready." */
export const TAG = /\bchaos-\d+\b/;

/**
 * Results posted in the chats: tag -> how many posts told the requester of one (a mention and
 * "is ready" or "failed"; or, for a job whose own message was never recorded, the finished card
 * posted for the requester: Slack's ✅/❌ header, Discord's green or red embed).
 */
export function postedResults(world: CrashWorld): Map<string, number> {
  const counts = new Map<string, number>();
  const notices = [
    ...(world.discord?.messages().map((m) => ({
      text: m.content,
      // A finished card's title (which holds the tag) is in its embed, not in the mention.
      title: m.embeds.map((e) => e.title ?? "").join(" "),
      finished: m.embeds.some((e) => e.color === 0x57f287 || e.color === 0xed4245),
    })) ?? []),
    ...world.slack.messages().map((m) => ({
      text: m.text,
      title: "",
      finished: /"type":"header","text":\{"type":"plain_text","text":"(✅|❌)/.test(JSON.stringify(m.blocks)),
    })),
  ];
  for (const { text, title, finished } of notices) {
    // The notice mentions the requester; the job's own card may say "is ready" too, and is not one.
    if (!/^<@[^>]+>/.test(text) || !(finished || /( is ready\.|: the job failed)/.test(text))) continue;
    const tag = TAG.exec(`${text} ${title}`)?.[0];
    if (tag) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return counts;
}

/** Tags any chat message shows (a job's own message, its result, a notice): the jobs the bot knew of. */
export function shownTags(world: CrashWorld): Set<string> {
  const texts = [
    ...(world.discord?.messages().map((m) => JSON.stringify([m.content, m.embeds])) ?? []),
    ...world.slack.messages().map((m) => m.text),
  ];
  return new Set(texts.flatMap((text) => text.match(new RegExp(TAG.source, "g")) ?? []));
}
