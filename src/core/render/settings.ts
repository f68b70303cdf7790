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
import type { BudgetView } from "../spend/data/model.js";
import { budgetLine } from "./budgets.js";
import { controlButton, controlSelect } from "./controls.js";
import { STATE_WORDS } from "./job.js";
import { type LanguageView, languageCard, languageLine, languageSelect } from "./language.js";
import { cancelButtons, waitingLine } from "./queue.js";
import { clip, inSentence, plural } from "./text.js";
import { PLACE, type Place, typed } from "./words.js";

/**
 * The settings panel: a person's defaults (each with whose it is), presets, running jobs, last
 * results and spending, and for admins the server's defaults. A message shows one section at a
 * time with tabs (Discord's five rows of controls hold four selects and a row of buttons); a home
 * (Slack's App Home tab) shows every section at once.
 */

export const PANEL_SECTIONS = ["defaults", "video", "presets", "activity", "server"] as const;
export type PanelSection = (typeof PANEL_SECTIONS)[number];

const TABS: Record<Exclude<PanelSection, "server">, string> = {
  defaults: "Shape & style",
  video: "Avatar & delivery",
  presets: "Presets",
  activity: "Jobs & spending",
};

const tabOf = (section: PanelSection, view: PanelView) =>
  section === "server" ? `${capitalized(PLACE[view.platform])} defaults` : TABS[section];

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

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
}

/** A default's value as people read it: a flag is yes or no. */
export function valueText(value: OptionValue): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

const shownOf = (d: DefaultView) => d.shown ?? (d.value === undefined ? "" : valueText(d.value));

/** Whose value holds, in words: "16:9, yours", "1:1, the server's", "not set". */
function standing(d: DefaultView, place: Place): string {
  if (d.value === undefined || d.from === "service") return "not set (the service decides)";
  return `${shownOf(d)}, ${d.from === "yours" ? "yours" : `the ${place}'s`}`;
}

function defaultSelect(
  action: "my_default" | "server_default",
  d: DefaultView,
  choices: { label: string; value: string }[],
  place: Place,
): CardSelect {
  const own = d.value !== undefined && d.from === (action === "my_default" ? "yours" : "server");
  const selected = own ? String(d.value) : undefined;
  const listed = selected === undefined || choices.some((c) => c.value === selected);
  const options = [...(listed ? [] : [{ label: shownOf(d), value: selected! }]), ...choices].slice(
    0,
    SELECT_OPTIONS - 1,
  );
  const clear =
    action === "my_default" ? `Clear (the ${place}'s or the service's)` : "Clear (the service decides)";
  return controlSelect(action, d.option, {
    label: d.label,
    placeholder: own ? d.label : `${d.label}: ${standing(d, place)}`,
    options: [...options, { label: clear, value: CLEAR }],
    ...(selected !== undefined && { selected }),
    ...(d.searchable && { search: { command: "settings", option: d.option } }),
  });
}

function selectsFor(
  action: "my_default" | "server_default",
  defaults: readonly DefaultView[],
  options: readonly string[],
  place: Place,
): CardSelect[] {
  return options.flatMap((option) => {
    const d = defaults.find((v) => v.option === option);
    return d?.choices ? [defaultSelect(action, d, d.choices, place)] : [];
  });
}

/** The defaults a section shows as text: those without a select there. */
function defaultFields(
  defaults: readonly DefaultView[],
  except: readonly string[],
  place: Place,
): Card["fields"] {
  return defaults
    .filter((d) => !except.includes(d.option) || !d.choices)
    .map((d) => ({ name: d.label, value: standing(d, place), inline: true }));
}

function presetLine(preset: PresetView): string {
  const values = Object.entries(preset.values)
    .map(([option, value]) => `${option.replaceAll("_", " ")} ${valueText(value)}`)
    .join(", ");
  return clip(`${preset.name}: ${values || "no values"}`, 300);
}

const precedence = (place: Place) =>
  `Commands use these when you leave an option out: an option you type wins, then a preset you name, then your default, then the ${place}'s.`;

function defaultsCard(view: PanelView): Card {
  const options = SECTION_OPTIONS.defaults;
  const place = PLACE[view.platform];
  const negative = view.defaults.filter((d) => d.option === "negative_prompt");
  return card("Your defaults: shape and style", "info", {
    lines: [precedence(place)],
    selects: selectsFor("my_default", view.defaults, options, place),
    fields: defaultFields(negative, options, place),
    actions: [controlButton("negative_prompt", "mine", "Negative prompt…")],
  });
}

function videoCard(view: PanelView): Card {
  const place = PLACE[view.platform];
  const forbidden =
    view.privateResults === "forbidden"
      ? [`An admin keeps every job of this ${place} in its channel: private delivery is off here.`]
      : [];
  const options = SECTION_OPTIONS.video;
  return card("Your defaults: avatar and delivery", "info", {
    lines: [
      "Avatar videos use this avatar and voice when you name none. Private delivery shows jobs only to you.",
      ...forbidden,
    ],
    selects: selectsFor("my_default", view.defaults, options, place),
    fields: defaultFields(
      view.defaults.filter((d) => (options as readonly string[]).includes(d.option)),
      options,
      place,
    ),
  });
}

/** Delete buttons fit Discord's rows beside the tabs: the newest presets get them. */
const DELETABLE = 10;

function presetsCard(view: PanelView): Card {
  const lines: Line[] = [
    view.presets.length > 0
      ? `Yours:\n${view.presets.map(presetLine).join("\n")}`
      : "You have no presets yet: use Save as preset under a result.",
    ...(view.serverPresets.length > 0
      ? [`The ${PLACE[view.platform]}'s:\n${view.serverPresets.map(presetLine).join("\n")}`]
      : []),
    "Use one with the preset option of any command.",
  ];
  return card("Presets", "info", {
    lines,
    actions: view.presets.slice(-DELETABLE).map((p) =>
      controlButton("delete_preset", "mine", `Delete ${clip(p.name, 40)}`, {
        style: "danger",
        value: p.id,
      }),
    ),
  });
}

function runningLine(entry: ActivityEntry): Line {
  const bar = entry.state === "queued" ? "" : ` ${progressBar(entry.progress)}`;
  return `${entry.title} · ${STATE_WORDS[entry.state]}${bar} · started ${entry.age} ago`;
}

function activityCard(view: PanelView): Card {
  const lines: Line[] = [
    view.running.length > 0
      ? `Running:\n${view.running.map(runningLine).join("\n")}`
      : "Nothing running right now.",
  ];
  const waiting = view.waiting ?? [];
  if (waiting.length > 0) {
    lines.push(
      `Waiting their turn (nothing is charged until one starts):\n${waiting.map((job) => waitingLine(job)).join("\n")}`,
    );
  }
  const fields: Card["fields"] = [];
  // Spending first: the results end the card.
  if (view.spending) {
    const { credits, jobs, budgets } = view.spending;
    fields.push({
      name: "Your spending this period",
      value: [
        `${plural(Math.round(credits * 100) / 100, "credit")}, ${plural(jobs, "job")}`,
        ...budgets.map((b) => `${b.label}: ${budgetLine(b)}`),
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
      value: `${STATE_WORDS[r.state]} · ${r.age} ago`,
      ...(r.url && { link: { label: "Open", url: r.url } }),
    });
  }
  if (view.results.length === 0) lines.push("No results yet.");
  else if (acted) lines.push(`The buttons below act on your newest result, ${inSentence(acted.title)}.`);
  return card("Your jobs", view.running.length > 0 ? "progress" : "info", {
    lines,
    fields,
    actions: [...cancelButtons(waiting), ...(view.latest?.controls ?? [])],
  });
}

function serverCard(view: PanelView): Card {
  const options = SECTION_OPTIONS.server;
  const place = PLACE[view.platform];
  const scoped = (more: Record<string, string | number> = {}) =>
    typed(view.platform, "settings", { scope: "server", ...more });
  return card(`The ${place}'s defaults`, "info", {
    lines: [
      "Everyone's commands use these when neither the command nor their own default says otherwise.",
      view.privateResults === "forbidden"
        ? "Private delivery: forbidden here."
        : "Private delivery: allowed.",
    ],
    selects: selectsFor("server_default", view.serverDefaults, options, place),
    fields: defaultFields(view.serverDefaults, options, place),
    footer: `Set the others with ${scoped()}, e.g. ${scoped({ duration: 8 })}.`,
  });
}

function sectionCard(view: PanelView, section: PanelSection): Card {
  switch (section) {
    case "defaults":
      return defaultsCard(view);
    case "video":
      return videoCard(view);
    case "presets":
      return presetsCard(view);
    case "activity":
      return activityCard(view);
    case "server":
      return serverCard(view);
  }
}

const sectionsOf = (view: PanelView) => PANEL_SECTIONS.filter((s) => s !== "server" || view.admin);

const withNotice = (c: Card, notice: PanelView["notice"]): Card =>
  notice ? { ...c, tone: notice.tone, lines: [notice.text, ...c.lines] } : c;

/** The panel as one message: the section asked for, tabs to the others. */
export function panelCard(view: PanelView): Card {
  const shown = sectionCard(view, view.section);
  const tabs = sectionsOf(view)
    .filter((s) => s !== view.section)
    .map((s) => controlButton("panel", "settings", tabOf(s, view), { value: s }));
  const home = view.home
    ? ["Your Home tab with the bot shows all of this and follows your jobs as they run."]
    : [];
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
  const cards = shown.map((s) => {
    const section = sectionCard(view, s);
    return s === noticed ? withNotice(section, view.notice) : section;
  });
  return view.language ? [...cards, languageCard(view.language)] : cards;
}
