import type { JobRecord } from "../../store/jobs.js";
import type { OptionValues } from "../../store/preferences.js";
import type { TenantSettings } from "../../store/tenants.js";
import { controlsFor } from "../actions/catalogue.js";
import type { MediaApi } from "../api/client.js";
import type { Card, Tone } from "../base/cards.js";
import type { Actor, ConversationRef } from "../base/ports.js";
import { defaultChoices } from "../commands/default-options.js";
import type { BotServices } from "../commands/define.js";
import { ageOf, RUNNING } from "../commands/jobs.js";
import { chosenLanguage } from "../i18n/languages.js";
import { readerLocale } from "../i18n/locale.js";
import { type Translator, translatorFor } from "../i18n/translator.js";
import type { PickItem, PickSource } from "../media/catalog-cache.js";
import { SETTINGS } from "../preferences/layers.js";
import { DELETE_RESULT } from "../render/delete.js";
import { viewOf } from "../render/job.js";
import {
  type ActivityEntry,
  type DefaultView,
  homeCards,
  optionName,
  type PanelSection,
  type PanelView,
  panelCard,
} from "../render/settings.js";
import { isAdmin, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import { learnLanguages } from "./admit.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";

/**
 * The settings panel, read for one person: as a message (the `settings` command, its tabs and
 * selects) or as their home (Slack's App Home tab, published again when their jobs change).
 * Its controls change the person's own preferences, or for admins the server's defaults.
 */

export interface PanelShow {
  section?: PanelSection;
  notice?: string | { tone: Tone; text: string };
}

/** Jobs read to find the running ones and the last results, newest first. */
const JOBS_READ = 20;
const RESULTS_SHOWN = 3;
/** Entries of an account's list offered in a select (the Clear entry makes 25). */
const LISTED = 24;
const PICKED: Partial<Record<string, PickSource>> = { avatar: "avatars", voice: "voices" };

async function mediaOf(core: Core, actor: Actor): Promise<MediaApi | undefined> {
  const tenant = tenantOf(actor);
  const key = await core.tenancy.apiKey(tenant).catch(() => undefined);
  return key ? core.mediaWith(tenant, key) : undefined;
}

/** The account's avatars and voices, for their selects; a list that cannot be read is left out. */
async function pickLists(core: Core, actor: Actor, media: MediaApi): Promise<Map<PickSource, PickItem[]>> {
  const lists = new Map<PickSource, PickItem[]>();
  for (const source of ["avatars", "voices"] as const) {
    try {
      lists.set(source, await core.cache.list(tenantKey(tenantOf(actor)), source, media));
    } catch (error) {
      core.logger.debug({ err: error, source }, "settings panel shown without a list it could not read");
    }
  }
  return lists;
}

function defaultViews(
  mine: OptionValues | undefined,
  server: OptionValues,
  lists: Map<PickSource, PickItem[]>,
  t: Translator,
): DefaultView[] {
  return SETTINGS.map((option) => {
    const own = mine?.[option];
    const theirs = server[option];
    const value = own ?? theirs;
    const source = PICKED[option];
    const items = source && lists.get(source);
    const choices =
      defaultChoices(option, t) ?? items?.slice(0, LISTED).map((i) => ({ label: i.name, value: i.id }));
    const named = items?.find((i) => i.id === value)?.name;
    return {
      option,
      label: optionName(option, t),
      from: own !== undefined ? "yours" : theirs !== undefined ? "server" : "service",
      ...(value !== undefined && { value }),
      ...(named && { shown: named }),
      ...(choices && { choices: [...choices] }),
      // A list longer than a select holds is searched where the platform can (Slack).
      ...(items && items.length > LISTED && { searchable: true as const }),
    };
  });
}

function entryOf(job: JobRecord, services: BotServices, now: number): ActivityEntry {
  const url = services.messageUrl(job);
  return {
    id: job.id,
    title: viewOf(job).title,
    state: job.state,
    progress: job.progress,
    age: ageOf(job.createdAt, now),
    ...(url && { url }),
  };
}

/** Running jobs, the last results, and (when recorded) this period's spending of the viewer. */
async function activityOf(
  services: BotServices,
  actor: Actor,
  conversation: ConversationRef,
  media: MediaApi | undefined,
  logger: Core["logger"],
): Promise<Pick<PanelView, "running" | "waiting" | "results" | "latest" | "spending">> {
  const jobs = await services.listJobs(actor, JOBS_READ);
  const waiting = await services.listWaiting(actor);
  const now = Date.now();
  const finished = jobs.filter((j) => !RUNNING.has(j.state)).slice(0, RESULTS_SHOWN);
  const newest = finished.find((j) => j.state === "done");
  let spending: PanelView["spending"];
  if (media) {
    try {
      const viewer = { ...actor, isAdmin: false };
      const { report } = await services.spend.report(viewer, conversation);
      if (report.totals.jobs > 0 || report.budgets.length > 0) {
        spending = { credits: report.totals.credits, jobs: report.totals.jobs, budgets: report.budgets };
      }
    } catch (error) {
      logger.debug({ err: error }, "settings panel shown without spending");
    }
  }
  return {
    running: jobs.filter((j) => RUNNING.has(j.state)).map((j) => entryOf(j, services, now)),
    waiting,
    results: finished.map((j) => entryOf(j, services, now)),
    // Delete asks first where the result is, which a home (in no channel) would not show: it is
    // on the result's message and in the jobs list.
    ...(newest && {
      latest: {
        id: newest.id,
        title: viewOf(newest).title,
        controls: controlsFor(newest).filter((c) => c.action !== DELETE_RESULT),
      },
    }),
    ...(spending && { spending }),
  };
}

/** What the panel shows of `actor`: every section for a home, the one asked for in a message. */
export async function panelView(
  core: Core,
  services: BotServices,
  actor: Actor,
  conversation: ConversationRef,
  show: PanelShow,
  surface: "message" | "home",
): Promise<PanelView> {
  const tenant = tenantOf(actor);
  const section = show.section ?? "defaults";
  const all = surface === "home";
  const [settings, preferences] = await Promise.all([
    core.tenancy.settings(tenant),
    core.preferences.get({ ...tenant, userId: actor.userId }),
  ]);
  const admin = isAdmin(actor, settings);
  const locale = readerLocale(actor);
  const t = translatorFor(locale);
  const media = await mediaOf(core, actor);
  const lists = media && (all || section === "video") ? await pickLists(core, actor, media) : new Map();
  const activity =
    all || section === "activity"
      ? await activityOf(services, actor, conversation, media, core.logger)
      : { running: [], results: [] };
  const presetView = (p: { name: string; values: OptionValues; createdAt: number }) => ({
    id: String(p.createdAt),
    name: p.name,
    values: p.values,
  });
  const notice =
    typeof show.notice === "string" ? { tone: "success" as const, text: show.notice } : show.notice;
  return {
    platform: actor.platform,
    section: section === "server" && !admin ? "defaults" : section,
    admin,
    defaults: defaultViews(preferences.defaults, settings.defaults, lists, t),
    serverDefaults: defaultViews(undefined, settings.defaults, lists, t),
    presets: preferences.presets.map(presetView),
    serverPresets: settings.presets.map(presetView),
    ...activity,
    privateResults: settings.privateResults,
    ...(notice && { notice }),
    home: core.adapter(actor.platform).publishHome !== undefined,
    language: {
      ...(chosenLanguage(preferences.defaults) && { chosen: chosenLanguage(preferences.defaults)! }),
      speaking: locale,
    },
    locale,
  };
}

export async function settingsPanel(
  core: Core,
  services: BotServices,
  actor: Actor,
  conversation: ConversationRef,
  show: PanelShow = {},
): Promise<Card> {
  return panelCard(await panelView(core, services, actor, conversation, show, "message"));
}

/** Where a home's reads are made from: no channel (channel budgets do not apply there). */
const homeConversation = (actor: Actor): ConversationRef => ({ platform: actor.platform, channelId: "" });

/**
 * The home is the person's own and in no channel: the tenant's channel allow-list does not apply
 * to it, its roles do.
 */
export async function admitHome(core: Core, actor: Actor): Promise<TenantSettings> {
  const settings = await core.tenancy.settings(tenantOf(actor));
  core.tenancy.checkAccess(actor, { channelId: settings.allowedChannelIds[0] ?? "" }, settings);
  await learnLanguages(core, actor, settings);
  return settings;
}

/** Publishes `actor`'s home as it stands; a refusal (no access) or a fault is what it shows instead. */
export async function publishHome(
  core: Core,
  services: BotServices,
  actor: Actor,
  show: PanelShow = {},
): Promise<void> {
  const adapter = core.adapter(actor.platform);
  if (!adapter.publishHome) return;
  let cards: Card[];
  try {
    await admitHome(core, actor);
    const view = await panelView(core, services, actor, homeConversation(actor), show, "home");
    cards = homeCards(view);
  } catch (error) {
    cards = [
      await failureCard(error, { logger: core.logger, context: { home: actor.userId }, reader: actor }),
    ];
  }
  await adapter.publishHome(actor, cards);
}
