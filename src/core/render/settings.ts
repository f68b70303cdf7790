import type { OptionValue, OptionValues } from "../../store/preferences.js";
import type { JobState } from "../api/job-status.js";
import {
  type Card,
  type CardAction,
  type CardSelect,
  card,
  type Line,
  progressBar,
  type Tone,
} from "../base/cards.js";
import type { Platform } from "../base/ports.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import type { BudgetView } from "../spend/data/model.js";
import { budgetText } from "./budgets.js";
import { controlButton, controlSelect } from "./controls.js";
import { stateWord } from "./job.js";
import { type LanguageView, languageCard, languageLine, languageSelect } from "./language.js";
import { cancelButtons, waitingLine } from "./queue.js";
import { clip, inSentence } from "./text.js";
import { typed } from "./words.js";

/**
 * The settings panel: a person's defaults (each with whose it is), presets, running jobs, last
 * results and spending, and for admins the server's defaults. A message shows one section at a
 * time with tabs (Discord's five rows of controls hold four selects and a row of buttons); a home
 * (Slack's App Home tab) shows every section at once.
 */

export const PANEL_SECTIONS = ["defaults", "video", "presets", "activity", "server"] as const;
export type PanelSection = (typeof PANEL_SECTIONS)[number];

const tabOf = (section: PanelSection, view: PanelView, t: Translator) =>
  t.text(`settings.tab.${section}`, { place: view.platform });

/** The defaults each section's selects set; the others of a section are shown as fields. */
export const SECTION_OPTIONS = {
  defaults: ["aspect_ratio", "style", "resolution", "duration"],
  video: ["avatar", "voice", "full_body", "delivery"],
  server: ["aspect_ratio", "style", "resolution", "delivery"],
} as const satisfies Partial<Record<PanelSection, readonly string[]>>;

/** The section whose selects set `option` (negative prompt: the one with its form's button). */
export function sectionOf(option: string): PanelSection {
  return (SECTION_OPTIONS.video as readonly string[]).includes(option) ? "video" : "defaults";
}

/** A select's value that removes the default. */
export const CLEAR = "-";
/** Options of one select, Discord's limit, the Clear entry included. */
const SELECT_OPTIONS = 25;

export interface DefaultView {
  option: string;
  label: string;
  /** In force at the level shown (the viewer's: theirs, else the server's; the server's own). */
  value?: OptionValue;
  from: "yours" | "server" | "service";
  /** The value as people read it (an avatar's name rather than its id). */
  shown?: string;
  /** What a select offers; absent for a default set by a form or by command (negative prompt). */
  choices?: { label: string; value: string }[];
  /** `choices` are the first entries of a longer list, searched by the settings command's autocomplete. */
  searchable?: true;
}

export interface PresetView {
  /** Stable within its owner (its creation time): what Delete names. */
  id: string;
  name: string;
  values: OptionValues;
}

export interface ActivityEntry {
  /** The job's id. */
  id: string;
  title: string;
  state: JobState;
  progress: number | null;
  /** "5 min", "3 h": how long ago it started. */
  age: string;
  url?: string;
}

export interface PanelView {
  /** Whose words the panel speaks: a server's or a workspace's defaults, options as typed there. */
  platform: Platform;
  section: PanelSection;
  admin: boolean;
  defaults: DefaultView[];
  serverDefaults: DefaultView[];
  presets: PresetView[];
  serverPresets: PresetView[];
  running: ActivityEntry[];
  /** The viewer's jobs waiting their turn, shown apart from the running ones, each with a Cancel. */
  waiting?: { id: string; title: string; ahead: number }[];
  results: ActivityEntry[];
  /** The newest result's follow-ups (Edit, Remix...), under the panel's list of jobs; `id` is among `results`. */
  latest?: { id: string; title: string; controls: CardAction[] };
  /** This period's spending of the viewer, when it is recorded and the account could be read. */
  spending?: { credits: number; jobs: number; budgets: BudgetView[] };
  privateResults: "allowed" | "forbidden";
  notice?: { tone: Tone; text: string };
  /** The platform has a home that shows all of this and keeps it current (Slack's App Home). */
  home: boolean;
  /** The person's language and their choice of it, on their home. */
  language?: LanguageView;
  /** The reader's language (`readerLocale`); English when absent. */
  locale?: string;
}

/** A default's value as people read it: a flag is yes or no. */
export function valueText(value: OptionValue, t: Translator = english()): string {
  if (typeof value === "boolean") return t.text("settings.flag", { value: String(value) });
  return String(value);
}

/** A setting's name as a label ("Aspect ratio"), or inside a sentence ("aspect ratio"). */
export const optionName = (option: string, t: Translator = english(), inSentence = false): string =>
  t.text(inSentence ? "settings.option_lower" : "settings.option", { option });

const shownOf = (d: DefaultView, t: Translator) =>
  d.shown ?? (d.value === undefined ? "" : valueText(d.value, t));

/** Whose value holds, in words: "16:9, yours", "1:1, the server's", "not set". */
function standing(d: DefaultView, view: PanelView, t: Translator): string {
  if (d.value === undefined || d.from === "service") return t.text("settings.standing.unset");
  return d.from === "yours"
    ? t.text("settings.standing.yours", { value: shownOf(d, t) })
    : t.text("settings.standing.tenant", { value: shownOf(d, t), place: view.platform });
}

function defaultSelect(
  action: "my_default" | "server_default",
  d: DefaultView,
  choices: { label: string; value: string }[],
  view: PanelView,
  t: Translator,
): CardSelect {
  const own = d.value !== undefined && d.from === (action === "my_default" ? "yours" : "server");
  const selected = own ? String(d.value) : undefined;
  const listed = selected === undefined || choices.some((c) => c.value === selected);
  const options = [...(listed ? [] : [{ label: shownOf(d, t), value: selected! }]), ...choices].slice(
    0,
    SELECT_OPTIONS - 1,
  );
  const clear =
    action === "my_default"
      ? t.text("settings.clear_mine", { place: view.platform })
      : t.text("settings.clear_tenant");
  return controlSelect(action, d.option, {
    label: d.label,
    placeholder: own
      ? d.label
      : t.text("settings.select_placeholder", { label: d.label, standing: standing(d, view, t) }),
    options: [...options, { label: clear, value: CLEAR }],
    ...(selected !== undefined && { selected }),
    ...(d.searchable && { search: { command: "settings", option: d.option } }),
  });
}

function selectsFor(
  action: "my_default" | "server_default",
  defaults: readonly DefaultView[],
  options: readonly string[],
  view: PanelView,
  t: Translator,
): CardSelect[] {
  return options.flatMap((option) => {
    const d = defaults.find((v) => v.option === option);
    return d?.choices ? [defaultSelect(action, d, d.choices, view, t)] : [];
  });
}

/** The defaults a section shows as text: those without a select there. */
function defaultFields(
  defaults: readonly DefaultView[],
  except: readonly string[],
  view: PanelView,
  t: Translator,
): Card["fields"] {
  return defaults
    .filter((d) => !except.includes(d.option) || !d.choices)
    .map((d) => ({ name: d.label, value: standing(d, view, t), inline: true }));
}

function presetLine(preset: PresetView, t: Translator): string {
  const values = Object.entries(preset.values)
    .map(([option, value]) =>
      t.text("settings.saved.item", { option: optionName(option, t, true), value: valueText(value, t) }),
    )
    .join(t.text("settings.items_separator"));
  return clip(`${preset.name}: ${values || t.text("settings.presets.no_values")}`, 300);
}

function defaultsCard(view: PanelView, t: Translator): Card {
  const options = SECTION_OPTIONS.defaults;
  const negative = view.defaults.filter((d) => d.option === "negative_prompt");
  return card(t.text("settings.defaults.title"), "info", {
    lines: [t.text("settings.precedence", { place: view.platform })],
    selects: selectsFor("my_default", view.defaults, options, view, t),
    fields: defaultFields(negative, options, view, t),
    actions: [controlButton("negative_prompt", "mine", t.text("settings.negative_prompt_button"))],
  });
}

function videoCard(view: PanelView, t: Translator): Card {
  const forbidden =
    view.privateResults === "forbidden"
      ? [t.text("settings.video.private_off", { place: view.platform })]
      : [];
  const options = SECTION_OPTIONS.video;
  return card(t.text("settings.video.title"), "info", {
    lines: [t.text("settings.video.line"), ...forbidden],
    selects: selectsFor("my_default", view.defaults, options, view, t),
    fields: defaultFields(
      view.defaults.filter((d) => (options as readonly string[]).includes(d.option)),
      options,
      view,
      t,
    ),
  });
}

/** Delete buttons fit Discord's rows beside the tabs: the newest presets get them. */
const DELETABLE = 10;

function presetsCard(view: PanelView, t: Translator): Card {
  const listed = (presets: readonly PresetView[]) => presets.map((p) => presetLine(p, t)).join("\n");
  const lines: Line[] = [
    view.presets.length > 0
      ? `${t.text("settings.presets.yours")}\n${listed(view.presets)}`
      : t.text("settings.presets.none", { save_as_preset: t.text("action.save_preset") }),
    ...(view.serverPresets.length > 0
      ? [`${t.text("settings.presets.tenant", { place: view.platform })}\n${listed(view.serverPresets)}`]
      : []),
    t.text("settings.presets.how", { preset: "preset" }),
  ];
  return card(t.text("settings.presets.title"), "info", {
    lines,
    actions: view.presets.slice(-DELETABLE).map((p) =>
      controlButton("delete_preset", "mine", t.text("settings.presets.delete", { name: clip(p.name, 40) }), {
        style: "danger",
        value: p.id,
      }),
    ),
  });
}

function runningLine(entry: ActivityEntry, t: Translator): Line {
  const bar = entry.state === "queued" ? "" : ` ${progressBar(entry.progress)}`;
  return t.text("settings.activity.running_line", {
    title: entry.title,
    state: stateWord(entry.state, t),
    bar,
    age: entry.age,
  });
}

function activityCard(view: PanelView, t: Translator): Card {
  const lines: Line[] = [
    view.running.length > 0
      ? `${t.text("settings.activity.running")}\n${view.running.map((e) => runningLine(e, t)).join("\n")}`
      : t.text("settings.activity.nothing_running"),
  ];
  const waiting = view.waiting ?? [];
  if (waiting.length > 0) {
    lines.push(
      `${t.text("settings.activity.waiting")}\n${waiting.map((job) => waitingLine(job, t)).join("\n")}`,
    );
  }
  const fields: Card["fields"] = [];
  // Spending first: the results end the card.
  if (view.spending) {
    const { credits, jobs, budgets } = view.spending;
    fields.push({
      name: t.text("settings.activity.spending"),
      value: [
        t.text("spend.share", { credits: Math.round(credits * 100) / 100, jobs }),
        ...budgets.map((b) => budgetText(b, t)),
      ].join("\n"),
    });
  }
  // Oldest first, and the result the buttons act on last: it sits right above them (a Home shows
  // a card's fields and then its buttons, one under the other).
  const acted = view.latest && view.latest.controls.length > 0 ? view.latest : undefined;
  const listed = [
    ...view.results.filter((r) => r.id !== acted?.id).reverse(),
    ...view.results.filter((r) => r.id === acted?.id),
  ];
  for (const r of listed) {
    fields.push({
      name: r.title,
      value: t.text("settings.activity.result_line", { state: stateWord(r.state, t), age: r.age }),
      ...(r.url && { link: { label: t.text("settings.activity.open"), url: r.url } }),
    });
  }
  if (view.results.length === 0) lines.push(t.text("settings.activity.no_results"));
  else if (acted) lines.push(t.text("settings.activity.acting_on", { title: inSentence(acted.title) }));
  return card(t.text("settings.activity.title"), view.running.length > 0 ? "progress" : "info", {
    lines,
    fields,
    actions: [...cancelButtons(waiting, t), ...(view.latest?.controls ?? [])],
  });
}

function serverCard(view: PanelView, t: Translator): Card {
  const options = SECTION_OPTIONS.server;
  const scoped = (more: Record<string, string | number> = {}) =>
    typed(view.platform, "settings", { scope: "server", ...more });
  return card(t.text("settings.server.title", { place: view.platform }), "info", {
    lines: [
      t.text("settings.server.line"),
      view.privateResults === "forbidden"
        ? t.text("settings.server.private_forbidden")
        : t.text("settings.server.private_allowed"),
    ],
    selects: selectsFor("server_default", view.serverDefaults, options, view, t),
    fields: defaultFields(view.serverDefaults, options, view, t),
    footer: t.text("settings.server.footer", {
      typed: scoped(),
      example: scoped({ duration: 8 }),
    }),
  });
}

function sectionCard(view: PanelView, section: PanelSection, t: Translator): Card {
  const shown = ((): Card => {
    switch (section) {
      case "defaults":
        return defaultsCard(view, t);
      case "video":
        return videoCard(view, t);
      case "presets":
        return presetsCard(view, t);
      case "activity":
        return activityCard(view, t);
      case "server":
        return serverCard(view, t);
    }
  })();
  // What an adapter adds to the card (Discord's notes, Slack's lines) is in the reader's language.
  return view.locale ? { ...shown, locale: t.locale } : shown;
}

const sectionsOf = (view: PanelView) => PANEL_SECTIONS.filter((s) => s !== "server" || view.admin);

const withNotice = (c: Card, notice: PanelView["notice"]): Card =>
  notice ? { ...c, tone: notice.tone, lines: [notice.text, ...c.lines] } : c;

/** The panel as one message: the section asked for, tabs to the others. */
export function panelCard(view: PanelView): Card {
  const t = translatorFor(view.locale);
  const shown = sectionCard(view, view.section, t);
  const tabs = sectionsOf(view)
    .filter((s) => s !== view.section)
    .map((s) => controlButton("panel", "settings", tabOf(s, view, t), { value: s }));
  const home = view.home ? [t.text("settings.home_hint")] : [];
  // A message's rows are few (Discord's five): the language's select rides on the Presets tab.
  const language =
    view.section === "presets" && view.language
      ? { lines: [languageLine(view.language)], selects: [languageSelect(view.language)] }
      : { lines: [], selects: [] };
  return withNotice(
    {
      ...shown,
      lines: [...shown.lines, ...language.lines, ...home],
      actions: [...tabs, ...shown.actions],
      ...(language.selects.length > 0 && { selects: [...(shown.selects ?? []), ...language.selects] }),
    },
    view.notice,
  );
}

/** The panel as a home: every section, jobs first; what a change says, on the section it changed. */
export function homeCards(view: PanelView): Card[] {
  const order: PanelSection[] = ["activity", "defaults", "video", "presets", "server"];
  const shown = order.filter((s) => sectionsOf(view).includes(s));
  const noticed = shown.includes(view.section) ? view.section : "activity";
  const t = translatorFor(view.locale);
  const cards = shown.map((s) => {
    const section = sectionCard(view, s, t);
    return s === noticed ? withNotice(section, view.notice) : section;
  });
  return view.language ? [...cards, languageCard(view.language)] : cards;
}
