/**
 * What the soak adds to the chaos campaign's commands (bench/chaos/mix.ts): the features a person
 * uses beside a job of some kind, on both platforms. A server preset an admin published, a
 * person's own preset saved, used and deleted, private results, a person over their budget, a
 * person past the running limit whose next command waits in the queue, and (Slack) a Home tab
 * kept current while its person's job runs. Each scenario notes what it saw happen (`note`),
 * which the report counts per scenario, so that a run shows each feature was exercised.
 */
import type { APIMessage } from "discord-api-types/v10";
import type { CrashWorld, Instance } from "../../test/crash-world.js";
import type { InjectedInteraction } from "../../test/fakes/discord/index.js";
import { until } from "../../test/main-process.js";
import { type Platform, postedResults, type Scenario, TAG, type Traffic } from "../chaos/mix.js";

export interface SoakTraffic extends Traffic {
  /** Something the command was seen to do (queued, refused by its budget, ...), for the report. */
  note(tag: string, what: string): void;
}

export interface SoakScenario extends Omit<Scenario, "run"> {
  run(traffic: SoakTraffic, tag: string, pick: number): Promise<boolean>;
  /** Ends in a refusal rather than a result: nobody waits for its result. */
  refused?: boolean;
}

/** The server's preset every "server preset" command names (published by an admin at the start). */
const SERVER_PRESET = "Soak";
/** A stored avatar of the emulator's test account (the same as the chaos campaign's). */
const AVATAR = "cm2yaz9j10008l0qg9npyjgs3";
/** How long an admin's setting, a reply or a queued place may take to show. */
const SHOW_MS = 10_000;
/** How long a result may take to show, for the scenarios that read it (a preset named in it). */
const RESULT_MS = 120_000;
/** Jobs one person may run at once (the bot's default running limit): the next one waits its turn. */
const RUNNING_LIMIT = 3;
/** People who only ever queue, per platform, so that two queue scenarios rarely share one. */
const QUEUERS = 4;

const EPHEMERAL = 64;
const ENDED_COLOURS = new Set([0x57f287, 0xed4245]);
const shownDiscord = (m: Pick<APIMessage, "content" | "embeds">) =>
  `${m.content}\n${JSON.stringify(m.embeds)}`;
const shownSlack = (m: { text: string; blocks: unknown }) => `${m.text}\n${JSON.stringify(m.blocks)}`;
const hasTag = (text: string, tag: string) => new RegExp(`\\b${tag}\\b`).test(text);

const waitFor = <T>(check: () => T | undefined | false, ms: number) =>
  until(check, ms, () => "").catch(() => undefined);

/** People the soak keeps apart from those who take turns: one over budget, some who queue. */
export interface Cast {
  overBudget: Record<Platform, string>;
  queuers: Record<Platform, string[]>;
}

export function castOf(world: CrashWorld): Cast {
  const discord = world.discord!;
  return {
    overBudget: {
      discord: discord.addUser("soak-over-budget").id,
      slack: world.slack.addUser("soak-over-budget").id,
    },
    queuers: {
      discord: Array.from({ length: QUEUERS }, (_, i) => discord.addUser(`soak-queue${i}`).id),
      slack: Array.from({ length: QUEUERS }, (_, i) => world.slack.addUser(`soak-queue${i}`).id),
    },
  };
}

// ---- sending, and reading what came back ------------------------------------------------------

/** A Discord command, once answered ("thinking…" or a reply): undefined when it never was. */
async function discordSend(
  traffic: Traffic,
  input: Parameters<NonNullable<CrashWorld["discord"]>["sendCommand"]>[0],
): Promise<InjectedInteraction | undefined> {
  const fake = traffic.world.discord!;
  await traffic.live();
  const interaction = await fake.sendCommand(input).catch(() => undefined);
  if (!interaction) return undefined;
  return (await waitFor(() => fake.callbacks(interaction.id).length > 0, SHOW_MS)) ? interaction : undefined;
}

/** What the interaction's answer shows (its own message, or a follow-up) once it shows `match`. */
function discordShows(traffic: Traffic, interaction: InjectedInteraction, match: RegExp, ms = SHOW_MS) {
  const fake = traffic.world.discord!;
  return waitFor(() => {
    const original = fake.original(interaction.id);
    return [...(original ? [original] : []), ...fake.followups(interaction.id)]
      .map(shownDiscord)
      .find((text) => match.test(text));
  }, ms);
}

async function slackSend(traffic: Traffic, text: string, user: string): Promise<boolean> {
  const instance = await traffic.live();
  const answer = await traffic.world.slack
    .slashCommand(instance.slackEventsUrl, { text, user })
    .catch(() => undefined);
  return answer?.status === 200;
}

/** A new ephemeral answer to `user` (one past the `before` they had) that shows `match`. */
function slackEphemeral(traffic: Traffic, user: string, before: number, match: RegExp) {
  return waitFor(() => {
    const text = traffic.world.slack
      .ephemerals()
      .filter((m) => m.user === user)
      .slice(before)
      .map(shownSlack)
      .find((t) => match.test(t));
    return text;
  }, SHOW_MS);
}

const ephemeralCount = (traffic: Traffic, user: string) =>
  traffic.world.slack.ephemerals().filter((m) => m.user === user).length;

/** A Slack command answered privately with `match` (an admin's setting, a refusal). */
async function slackReply(traffic: Traffic, text: string, user: string, match: RegExp) {
  const before = ephemeralCount(traffic, user);
  if (!(await slackSend(traffic, text, user))) return undefined;
  return slackEphemeral(traffic, user, before, match);
}

/** The finished result of `tag` in the channel (its job message's header ✅ or ❌). */
function slackResult(traffic: Traffic, tag: string, ms = RESULT_MS) {
  return waitFor(() => {
    const message = traffic.world.slack
      .messages()
      .map(shownSlack)
      .find((t) => hasTag(t, tag) && /"type":"header","text":\{"type":"plain_text","text":"(✅|❌)/.test(t));
    return message;
  }, ms);
}

/** The finished job message of a Discord command (green or red card). */
function discordResult(traffic: Traffic, interaction: InjectedInteraction, ms = RESULT_MS) {
  const fake = traffic.world.discord!;
  return waitFor(() => {
    const message = fake.original(interaction.id);
    return message?.embeds.some((e) => ENDED_COLOURS.has(e.color ?? 0)) ? shownDiscord(message) : undefined;
  }, ms);
}

// ---- the admins' settings at the start ---------------------------------------------------------

/**
 * What admins set before the traffic starts, on both platforms: a budget for each person (large:
 * every job is checked against it and counted, none refused), a budget of 0 jobs for the person
 * who is always over it, and a server preset everyone may name. Throws when one was not taken.
 */
export async function prepare(traffic: Traffic, cast: Cast): Promise<string[]> {
  const { world } = traffic;
  const done: string[] = [];
  const discordAdmin = world.discord!.users.admin.id;
  const discord: { what: string; input: Parameters<typeof discordSend>[1]; shows: RegExp }[] = [
    {
      what: "budget each person 10,000,000 credits",
      input: { name: "budget", options: { for: "each", credits: 10_000_000 } },
      shows: /Budget saved/,
    },
    {
      what: "budget soak-over-budget 0 jobs",
      input: { name: "budget", options: { for: `<@${cast.overBudget.discord}>`, jobs: 0 } },
      shows: /Budget saved/,
    },
    {
      what: `preset ${SERVER_PRESET} saved (16:9, negative prompt)`,
      input: {
        name: "preset",
        subcommand: "save",
        options: { name: SERVER_PRESET, aspect_ratio: "16:9", negative_prompt: "blur" },
      },
      shows: /saved/,
    },
    {
      what: `preset ${SERVER_PRESET} published`,
      input: { name: "preset", subcommand: "publish", options: { name: SERVER_PRESET } },
      shows: /Everyone here can use it now/,
    },
  ];
  for (const step of discord) {
    const interaction = await discordSend(traffic, { ...step.input, user: discordAdmin });
    if (!interaction || !(await discordShows(traffic, interaction, step.shows)))
      throw new Error(`soak setup on Discord: ${step.what} was not taken`);
    done.push(`Discord: ${step.what}`);
  }
  const slackAdmin = world.slack.users.admin.id;
  const slack: { what: string; text: string; shows: RegExp }[] = [
    {
      what: "budget each person 10,000,000 credits",
      text: "budget each --credits 10000000",
      shows: /Budget saved/,
    },
    {
      what: "budget soak-over-budget 0 jobs",
      text: `budget <@${cast.overBudget.slack}|soak-over-budget> --jobs 0`,
      shows: /Budget saved/,
    },
    {
      what: `preset ${SERVER_PRESET} saved (16:9, negative prompt)`,
      text: `preset save ${SERVER_PRESET} --aspect_ratio 16:9 --negative_prompt blur`,
      shows: /saved/,
    },
    {
      what: `preset ${SERVER_PRESET} published`,
      text: `preset publish ${SERVER_PRESET}`,
      shows: /Everyone here can use it now/,
    },
  ];
  for (const step of slack) {
    if (!(await slackReply(traffic, step.text, slackAdmin, step.shows)))
      throw new Error(`soak setup on Slack: ${step.what} was not taken`);
    done.push(`Slack: ${step.what}`);
  }
  return done;
}

// ---- the scenarios ---------------------------------------------------------------------------

const PRESET_NAMED = new RegExp(`preset ${SERVER_PRESET}`, "i");

/** The soak's scenarios; `cast` holds the people kept apart from those who take turns. */
export function soakScenarios(cast: Cast): SoakScenario[] {
  const queuer = (platform: Platform, pick: number) => cast.queuers[platform][pick % QUEUERS]!;
  return [
    {
      name: "image generate, server preset",
      platform: "discord",
      async run(traffic, tag, pick) {
        const interaction = await discordSend(traffic, {
          name: "image",
          subcommand: "generate",
          options: { prompt: `${tag} a lighthouse`, preset: SERVER_PRESET },
          user: traffic.user("discord", pick),
        });
        if (!interaction) return false;
        void discordResult(traffic, interaction).then((shown) => {
          if (shown && PRESET_NAMED.test(shown)) traffic.note(tag, "result names the preset");
        });
        return true;
      },
    },
    {
      name: "image generate, server preset",
      platform: "slack",
      async run(traffic, tag, pick) {
        const sent = await slackSend(
          traffic,
          `image generate ${tag} a lighthouse --preset ${SERVER_PRESET}`,
          traffic.user("slack", pick),
        );
        if (sent)
          void slackResult(traffic, tag).then((shown) => {
            if (shown && PRESET_NAMED.test(shown)) traffic.note(tag, "result names the preset");
          });
        return sent;
      },
    },
    {
      name: "own preset saved, used, deleted",
      platform: "discord",
      async run(traffic, tag, pick) {
        const user = traffic.user("discord", pick);
        const saved = await discordSend(traffic, {
          name: "preset",
          subcommand: "save",
          options: { name: tag, aspect_ratio: "9:16" },
          user,
        });
        if (!saved || !(await discordShows(traffic, saved, /saved/))) return false;
        traffic.note(tag, "preset saved");
        const used = await discordSend(traffic, {
          name: "thumbnail",
          subcommand: "generate",
          options: { prompt: `${tag} a tall poster`, preset: tag },
          user,
        });
        if (!used) return false;
        // Deleted once its job is done with it, as a person tidying up would.
        void discordResult(traffic, used).then(async (shown) => {
          if (shown && new RegExp(`preset ${tag}`, "i").test(shown))
            traffic.note(tag, "result names the preset");
          const deleted = await discordSend(traffic, {
            name: "preset",
            subcommand: "delete",
            options: { name: tag },
            user,
          });
          if (deleted && (await discordShows(traffic, deleted, /deleted/)))
            traffic.note(tag, "preset deleted");
        });
        return true;
      },
    },
    {
      name: "own preset saved, used, deleted",
      platform: "slack",
      async run(traffic, tag, pick) {
        const user = traffic.user("slack", pick);
        if (!(await slackReply(traffic, `preset save ${tag} --aspect_ratio 9:16`, user, /saved/)))
          return false;
        traffic.note(tag, "preset saved");
        if (!(await slackSend(traffic, `thumbnail generate ${tag} a tall poster --preset ${tag}`, user)))
          return false;
        void slackResult(traffic, tag).then(async (shown) => {
          if (shown && new RegExp(`preset ${tag}`, "i").test(shown))
            traffic.note(tag, "result names the preset");
          if (await slackReply(traffic, `preset delete ${tag}`, user, /deleted/))
            traffic.note(tag, "preset deleted");
        });
        return true;
      },
    },
    {
      name: "image generate, private result",
      platform: "discord",
      async run(traffic, tag, pick) {
        return Boolean(
          await discordSend(traffic, {
            name: "image",
            subcommand: "generate",
            options: { prompt: `${tag} a secret garden`, delivery: "private" },
            user: traffic.user("discord", pick),
          }),
        );
      },
    },
    {
      name: "image generate, private result",
      platform: "slack",
      run: (traffic, tag, pick) =>
        slackSend(
          traffic,
          `image generate ${tag} a secret garden --delivery private`,
          traffic.user("slack", pick),
        ),
    },
    {
      name: "over budget (refused)",
      platform: "discord",
      refused: true,
      async run(traffic, tag) {
        const interaction = await discordSend(traffic, {
          name: "image",
          subcommand: "generate",
          options: { prompt: `${tag} one too many` },
          user: cast.overBudget.discord,
        });
        if (!interaction) return false;
        if (await discordShows(traffic, interaction, /over your budget/))
          traffic.note(tag, "refused by its budget");
        return true;
      },
    },
    {
      name: "over budget (refused)",
      platform: "slack",
      refused: true,
      async run(traffic, tag) {
        const user = cast.overBudget.slack;
        const before = ephemeralCount(traffic, user);
        if (!(await slackSend(traffic, `image generate ${tag} one too many`, user))) return false;
        if (await slackEphemeral(traffic, user, before, /over your budget/))
          traffic.note(tag, "refused by its budget");
        return true;
      },
    },
    {
      name: "queued past the running limit",
      platform: "discord",
      async run(traffic, tag, pick) {
        const user = queuer("discord", pick);
        // Videos (3.6 s at the default time scale) hold the person's places while the next one asks.
        const running = await Promise.all(
          Array.from({ length: RUNNING_LIMIT }, () =>
            discordSend(traffic, {
              name: "video",
              subcommand: "avatar",
              options: { avatar: AVATAR, script: "soak filler" },
              user,
            }),
          ),
        );
        if (running.some((r) => !r)) return false;
        const interaction = await discordSend(traffic, {
          name: "image",
          subcommand: "generate",
          options: { prompt: `${tag} a patient heron` },
          user,
        });
        if (!interaction) return false;
        if (await discordShows(traffic, interaction, /Queued: \d+ ahead of you/)) traffic.note(tag, "queued");
        return true;
      },
    },
    {
      name: "queued past the running limit",
      platform: "slack",
      async run(traffic, tag, pick) {
        const user = queuer("slack", pick);
        const running = await Promise.all(
          Array.from({ length: RUNNING_LIMIT }, () =>
            slackSend(traffic, `video avatar soak filler --avatar ${AVATAR}`, user),
          ),
        );
        if (running.some((r) => !r)) return false;
        const { calls } = traffic.world.slack;
        const from = calls.length;
        if (!(await slackSend(traffic, `image generate ${tag} a patient heron`, user))) return false;
        // Read from the posts and edits the bot sent: the place may be edited over at once.
        const queued = await waitFor(
          () =>
            calls
              .slice(from)
              .map((call) => JSON.stringify(call.args))
              .find((t) => hasTag(t, tag) && /Queued: \d+ ahead of you/.test(t)),
          SHOW_MS,
        );
        if (queued) traffic.note(tag, "queued");
        return true;
      },
    },
    {
      name: "Home tab open while the job runs",
      platform: "slack",
      async run(traffic, tag, pick) {
        const { slack } = traffic.world;
        const user = traffic.user("slack", pick);
        const instance: Instance = await traffic.live();
        const opened = await slack.openHome(instance.slackEventsUrl, user).catch(() => undefined);
        if (opened?.status !== 200) return false;
        if (!(await slackSend(traffic, `image generate ${tag} a lantern`, user))) return false;
        void waitFor(() => hasTag(JSON.stringify(slack.home(user) ?? {}), tag), RESULT_MS).then((shows) => {
          if (shows) traffic.note(tag, "Home shows the job");
        });
        return true;
      },
    },
  ];
}

/**
 * Private results, by tag: the finished job message only its person sees (Discord: ephemeral, a
 * green or red card titled with the tag; Slack: in the person's DM with the bot, ✅ or ❌ header).
 * `dms` keeps the DM channels found so far in the fake's calls, and where it stopped reading them.
 */
export function privateResults(world: CrashWorld, dms: { channels: Set<string>; read: number }): Set<string> {
  const tags = new Set<string>();
  for (const m of world.discord?.messages() ?? []) {
    if (!((m.flags ?? 0) & EPHEMERAL) || !m.embeds.some((e) => ENDED_COLOURS.has(e.color ?? 0))) continue;
    const tag = TAG.exec(m.embeds.map((e) => e.title ?? "").join(" "))?.[0];
    if (tag) tags.add(tag);
  }
  const calls = world.slack.calls;
  for (; dms.read < calls.length; dms.read++) {
    const call = calls[dms.read]!;
    if (call.method === "chat.postMessage" && String(call.args.channel).startsWith("D"))
      dms.channels.add(String(call.args.channel));
  }
  for (const channel of dms.channels)
    for (const m of world.slack.messages(channel)) {
      const text = shownSlack(m);
      if (!/"type":"header","text":\{"type":"plain_text","text":"(✅|❌)/.test(text)) continue;
      const tag = TAG.exec(text)?.[0];
      if (tag) tags.add(tag);
    }
  return tags;
}

/** Results shown by tag: posted in the channels (chaos/mix.ts), and privately. */
export function shownResults(
  world: CrashWorld,
  dms: { channels: Set<string>; read: number },
): { posted: Set<string>; privately: Set<string> } {
  return { posted: new Set(postedResults(world).keys()), privately: privateResults(world, dms) };
}
