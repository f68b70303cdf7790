/**
 * A person's gestures on the page, turned into what the fakes do when a real user acts: an
 * INTERACTION_CREATE over the fake Discord's gateway (commands, autocomplete, buttons, selects,
 * modals), a signed request from the fake Slack to the Bolt app (slash commands, block actions,
 * view submissions). What the fakes refuse is what the real clients would not let a user send.
 */
import type { APIModalInteractionResponseCallbackData } from "discord-api-types/v10";
import { STEPS, stepInputs, USER_INPUT } from "../../src/slack/steps.js";
import type { FakeFile } from "../fakes/discord/index.js";
import type { InputValue } from "../fakes/slack/index.js";
import { parseLine } from "./discord-line.js";
import { withMentions } from "./mentions.js";
import { HOME } from "./render/slack.js";
import { DM_PLACE, type PlaygroundWorld } from "./world.js";

/** The languages the page offers: the bot's, as each client names its locale. */
export const CLIENT_LOCALES = [
  { id: "en", discord: "en-US", slack: "en-US" },
  { id: "de", discord: "de", slack: "de-DE" },
  { id: "fr", discord: "fr", slack: "fr-FR" },
  { id: "es", discord: "es-ES", slack: "es-ES" },
  { id: "pt-BR", discord: "pt-BR", slack: "pt-BR" },
  { id: "ja", discord: "ja", slack: "ja-JP" },
] as const;

/** Discord's client gives up on suggestions after about three seconds. */
const AUTOCOMPLETE_WAIT_MS = 3_000;

export type Body = Record<string, unknown>;

/** A file the page sends: what the user picked in a file input, base64-encoded. */
interface PageFile {
  name: string;
  type: string;
  data: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const isFiles = (value: unknown): value is PageFile[] =>
  Array.isArray(value) && value.some((v) => typeof v === "object");

const fakeFile = (f: PageFile): FakeFile => ({
  name: f.name,
  ...(f.type && { contentType: f.type }),
  data: Buffer.from(f.data, "base64"),
});

export function createGestures(world: PlaygroundWorld) {
  const { discord, slack } = world;
  /** Interactions the page started, newest last: the bot may have answered one with a modal. */
  const started: string[] = [];
  const track = async (interaction: Promise<{ id: string }>) => {
    started.push((await interaction).id);
  };
  const registered = () => discord.commands();
  const discordUsers = Object.values(discord.users).map((u) => u.id);
  const slackUsers = Object.values(slack.users).map((u) => u.id);
  /** Who acts: one of the seeded members, the requester unless the page says otherwise. */
  const actor = (body: Body, known: string[]) => {
    const id = typeof body.user === "string" ? body.user : known[0]!;
    if (!known.includes(id)) throw new HttpError(400, `no user ${id} here`);
    return id;
  };
  /** Where a Discord command is used: the place picked in the pane's bar, the seeded channel by default. */
  const place = (body: Body) => {
    const id = typeof body.channel === "string" ? body.channel : discord.channel.id;
    if (!world.discordPlaces.some((p) => p.id === id)) throw new HttpError(400, `no place ${id} here`);
    return id === DM_PLACE ? { guild: false as const } : { channelId: id };
  };

  const actions: Record<string, (body: Body) => Promise<unknown>> = {
    /**
     * Every member switches their Discord and Slack to one language, as each would in their
     * client's settings: Discord sends it with their next interaction, Slack says so with
     * `user_change`.
     */
    async language(body) {
      const locale = CLIENT_LOCALES.find((l) => l.id === body.locale);
      if (!locale) throw new HttpError(400, `no language ${String(body.locale)} here`);
      for (const user of discordUsers) discord.setLocale(user, locale.discord);
      for (const user of slackUsers)
        await slack.changeUser(world.slackEventsUrl, user, { locale: locale.slack });
    },
    async "discord/command"(body) {
      const files = ((body.files as PageFile[] | undefined) ?? []).map(fakeFile);
      const user = actor(body, discordUsers);
      const line = withMentions(String(body.line), world.people.discord);
      await track(discord.sendCommand({ ...parseLine(line, registered(), files), user, ...place(body) }));
    },
    /** What the bot suggests for the option being typed, as Discord's client asks it. */
    async "discord/autocomplete"(body) {
      const { attachments: _none, ...input } = parseLine(String(body.line), registered(), [], {
        partial: true,
      });
      const sent = await discord.sendAutocomplete({
        ...input,
        user: actor(body, discordUsers),
        ...place(body),
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
      await track(discord.clickButton(String(body.message), String(body.custom), actor(body, discordUsers)));
    },
    async "discord/select"(body) {
      const values = body.values as string[];
      const user = actor(body, discordUsers);
      await track(discord.selectMenu(String(body.message), String(body.custom), values, user));
    },
    async "discord/modal"(body) {
      const fields: Record<string, string | string[] | FakeFile[]> = {};
      for (const [id, value] of Object.entries(body.fields as Record<string, unknown>)) {
        fields[id] = isFiles(value) ? value.map(fakeFile) : (value as string | string[]);
      }
      await track(discord.submitModal(String(body.custom), fields));
    },
    async "slack/command"(body) {
      const match = /^\s*(\/\S+)\s*([\s\S]*)$/.exec(withMentions(String(body.line), world.people.slack));
      if (match?.[1] !== "/media") throw new HttpError(400, `${match?.[1] ?? "That"} is not a valid command`);
      const user = actor(body, slackUsers);
      await slack.slashCommand(world.slackEventsUrl, { text: match[2]!.trim(), user });
    },
    async "slack/action"(body) {
      if (body.message === HOME) {
        await slack.homeAction(world.slackEventsUrl, {
          user: actor(body, slackUsers),
          actionId: String(body.action),
          ...(typeof body.value === "string" && { value: body.value }),
        });
        return;
      }
      await slack.blockAction(world.slackEventsUrl, {
        user: actor(body, slackUsers),
        actionId: String(body.action),
        message: String(body.message),
        ...(typeof body.value === "string" && { value: body.value }),
        ...(typeof body.block === "string" && { blockId: body.block }),
      });
    },
    /** The person opens the app's Home tab: Slack tells the app (app_home_opened). */
    async "slack/home"(body) {
      await slack.openHome(world.slackEventsUrl, actor(body, slackUsers));
    },
    /**
     * A workflow reaches one of the app's steps with the values typed in its form: Slack sends
     * function_executed, its Person input the person acting (as a link trigger passes them).
     */
    async "slack/step"(body) {
      const step = STEPS.find((s) => s.callbackId === body.step);
      if (!step) throw new HttpError(400, `no step ${String(body.step)}`);
      const user = actor(body, slackUsers);
      const inputs: Record<string, unknown> = { [USER_INPUT]: { id: user, secret: "playground" } };
      for (const [name, value] of Object.entries(body.values as Record<string, unknown>)) {
        const type = stepInputs(step)[name]?.type;
        if (type === "boolean") inputs[name] = Array.isArray(value) && value.length > 0;
        else if (type === "integer") inputs[name] = Number(value);
        else if (type === "slack#/types/file_id" && isFiles(value))
          inputs[name] = slack.addUserFile(Buffer.from(value[0]!.data, "base64"), {
            name: value[0]!.name,
            mimetype: value[0]!.type || "application/octet-stream",
            user,
          }).id;
        else if (typeof value === "string") inputs[name] = value;
      }
      await slack.functionExecuted(world.slackEventsUrl, { callbackId: step.callbackId, inputs });
    },
    async "slack/view"(body) {
      const user = actor(body, slackUsers);
      const values: Record<string, InputValue> = {};
      for (const [id, value] of Object.entries(body.values as Record<string, unknown>)) {
        // Files picked in a file input are files the user shared in Slack first.
        values[id] = isFiles(value)
          ? value.map((f) =>
              slack.addUserFile(Buffer.from(f.data, "base64"), {
                name: f.name,
                mimetype: f.type || "application/octet-stream",
                user,
              }),
            )
          : (value as string | string[]);
      }
      const answer = await slack.viewSubmission(world.slackEventsUrl, {
        viewId: String(body.view),
        values,
        user,
      });
      const errors = (answer.body as { errors?: Record<string, string> } | undefined)?.errors;
      return errors ? { errors } : {};
    },
  };

  /** The modal the bot showed `userId` in answer to the latest of their interactions, if still open. */
  function openDiscordModal(
    userId: string,
  ): { interactionId: string; modal: APIModalInteractionResponseCallbackData } | undefined {
    for (const id of [...started].reverse()) {
      const record = discord.interaction(id);
      if (record?.userId === userId && record.modal && !record.modalSubmitted)
        return { interactionId: id, modal: record.modal };
    }
    return undefined;
  }

  return { actions, openDiscordModal };
}
