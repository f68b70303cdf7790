import { describe, expect, it } from "vitest";
import type { Card } from "../../../src/core/base/cards.js";
import type { Actor, Platform } from "../../../src/core/base/ports.js";
import { defaultChoices } from "../../../src/core/commands/default-options.js";
import { ANIMATION_STYLES } from "../../../src/core/commands/options.js";
import { setupCard } from "../../../src/core/commands/setup.js";
import { LOCALES } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { SETTINGS } from "../../../src/core/preferences/layers.js";
import { PRESET_LIMIT, PRESET_NAME_MAX } from "../../../src/core/preferences/presets.js";
import { presetSavedCard, presetsCard } from "../../../src/core/render/presets.js";
import {
  homeCards,
  optionName,
  PANEL_SECTIONS,
  type PanelView,
  panelCard,
} from "../../../src/core/render/settings.js";
import { styleLabel } from "../../../src/core/render/text.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import type { TenantSettings } from "../../../src/store/tenants.js";
import { addPseudoLocale, bypasses, PSEUDO } from "./pseudo.js";

addPseudoLocale();

/** The settings panel, setup's card and the presets' cards, in a reader's language. */

const NAME = "N".repeat(PRESET_NAME_MAX);
const TITLE = `Image: ${"w".repeat(60)}…`;

/** A panel of everything: every default (the person's, the server's, the service's), presets, jobs. */
function view(locale: string, platform: Platform, section: PanelView["section"], name = "wide"): PanelView {
  const t = translatorFor(locale);
  const from = ["yours", "server", "service"] as const;
  const defaults = SETTINGS.map((option, i) => {
    const choices = defaultChoices(option, t) ?? [{ label: "Ada", value: "a1" }];
    const value = option === "negative_prompt" ? "blur" : option === "full_body" ? true : choices[0]?.value;
    const whose = from[i % 3]!;
    return {
      option,
      label: optionName(option, t),
      from: whose,
      ...(whose !== "service" && value !== undefined && { value }),
      ...(option !== "negative_prompt" && { choices: [...choices] }),
    };
  });
  return {
    platform,
    section,
    admin: true,
    defaults,
    serverDefaults: defaults.map((d) => ({ ...d, from: d.from === "yours" ? "server" : d.from })),
    presets: [{ id: "17", name, values: { aspect_ratio: "16:9", full_body: true, duration: 8 } }],
    serverPresets: [{ id: "18", name, values: { style: "luxury_macro" } }],
    running: [{ id: "J0", title: TITLE, state: "working", progress: 40, age: "1 min" }],
    waiting: [{ id: "J2", title: TITLE, ahead: 2 }],
    results: [
      { id: "J1", title: TITLE, state: "done", progress: 100, age: "5 min", url: "https://x.test/m/1" },
    ],
    latest: { id: "J1", title: TITLE, controls: [] },
    spending: { credits: 1234.5, jobs: 2, budgets: [] },
    privateResults: "forbidden",
    home: platform === "slack",
    locale,
  };
}

const settings = (over: Partial<TenantSettings> = {}): TenantSettings => ({
  allowedRoleIds: [],
  allowedChannelIds: [],
  adminUserIds: [],
  defaults: {},
  alertChannelId: "C1",
  alertAt: [0.2, 0.05],
  presets: [],
  privateResults: "allowed",
  runningLimit: null,
  queueLimit: null,
  tenantRunningLimit: 40,
  hasApiKey: true,
  updatedAt: null,
  ...over,
});

const actor = (locale: string, platform: Platform, personal = false): Actor => ({
  platform,
  tenantId: personal ? "U1" : "T1",
  userId: "U1",
  isAdmin: true,
  roleIds: [],
  locale,
});

/** Every card of the area a reader of `locale` may see, with the longest names a person can give. */
function cards(locale: string, name = "wide"): Card[] {
  const t = translatorFor(locale);
  const preset = {
    name,
    values: { aspect_ratio: "16:9", negative_prompt: "x".repeat(60), full_body: false },
  };
  return (["discord", "slack"] as const).flatMap((platform) => [
    ...PANEL_SECTIONS.map((section) => panelCard(view(locale, platform, section, name))),
    ...homeCards(view(locale, platform, "defaults", name)),
    presetsCard([preset], [], PRESET_LIMIT, platform, t),
    presetsCard([], [preset], PRESET_LIMIT, platform, t),
    presetSavedCard(preset, "yours", platform, t),
    presetSavedCard(preset, "shared", platform, t),
    setupCard("setup.title.current", settings(), true, actor(locale, platform)),
    setupCard("setup.title.saved", settings({ hasApiKey: false }), false, actor(locale, platform, true)),
  ]);
}

/** Every string of a card a person reads. */
const texts = (card: Card): string[] => [
  card.title,
  ...card.lines.map((line) => (typeof line === "string" ? line : "")),
  ...card.fields.flatMap((f) => [f.name, f.value, f.link?.label ?? ""]),
  ...card.actions.map((a) => a.label),
  ...(card.selects ?? []).flatMap((s) => [s.label, s.placeholder, ...s.options.map((o) => o.label)]),
  card.footer ?? "",
];

/**
 * What is typed or named as it is in every language: the person's titles and names, option names
 * and values, commands, the languages in their own words, the service's style names.
 */
const TYPED = [
  "https://x.test/m/1",
  ...ANIMATION_STYLES,
  ...ANIMATION_STYLES.map(styleLabel),
  "Image",
  "wwww",
  "xxxx",
  "preset save",
  "preset publish",
  "--preset",
  "preset:",
  "preset",
  "delivery private",
  "alerts_channel",
  "settings --scope server --duration 8",
  "settings scope:server duration:8",
  "settings --scope server",
  "settings scope:server",
  "setup",
  "wide",
  "blur",
  "English",
  "Deutsch",
  "Français",
  "Español",
  "Português",
  "Brasil",
];

describe("the settings panel, setup's card and presets in the reader's language", () => {
  it("show no English of their own in the pseudo-locale", () => {
    const plain = cards(PSEUDO).flatMap((card) => {
      const found = bypasses(texts(card).join("\n"), [TITLE, ...TYPED]);
      return found.length > 0 ? [`${card.title}: ${found.join(" ")}`] : [];
    });
    expect(plain).toEqual([]);
  });

  it("keep English as it was, and speak German to a German reader", () => {
    const english = panelCard(view("en", "discord", "defaults"));
    expect(english.title).toBe("Your defaults: shape and style");
    const german = panelCard(view("de", "discord", "defaults"));
    expect(german.title).toBe("Deine Standards: Format und Stil");
    expect(german.locale).toBe("de");
    expect(german.selects?.map((s) => s.placeholder)).toEqual([
      "Seitenverhältnis",
      "Stil: luxury_macro, vom Server",
      "Auflösung: nicht gesetzt (der Dienst entscheidet)",
      "Dauer",
    ]);
    expect(german.selects?.[3]?.options.map((o) => o.label).slice(0, 2)).toEqual([
      "5 Sekunden",
      "8 Sekunden",
    ]);
    expect(german.actions.map((a) => a.label)).toContain("Server-Standards");
    const activity = panelCard(view("de", "discord", "activity"));
    expect(activity.fields[0]).toMatchObject({
      name: "Deine Ausgaben in diesem Zeitraum",
      value: "1234,5 Credits, 2 Aufträge",
    });
    const setup = setupCard("setup.title.saved", settings(), true, actor("de", "slack"));
    expect(setup.title).toBe("Einstellungen gespeichert");
    expect(setup.fields.slice(0, 3)).toEqual([
      { name: "API-Schlüssel", value: "Eigener Schlüssel dieses Workspaces (verschlüsselt gespeichert)" },
      { name: "Erlaubte Rollen", value: "Alle", inline: true },
      { name: "Erlaubte Kanäle", value: "Jeder Kanal", inline: true },
    ]);
    const saved = presetSavedCard(
      { name: "Hell", values: { full_body: true } },
      "yours",
      "discord",
      translatorFor("de"),
    );
    expect([saved.title, ...saved.lines]).toEqual([
      "Preset Hell gespeichert",
      "Ganzkörper ja.",
      "Nutz es mit preset:Hell bei jedem Befehl, der etwas erzeugt.",
    ]);
  });

  it("keep every label, option, title and field within Discord's and Slack's limits in every language", () => {
    // The pseudo-locale pads each nested message again, so a placeholder made of three (a label,
    // a value's standing, whose it is) outgrows any language: the adapters cut placeholders anyway.
    const over = [...LOCALES, PSEUDO].flatMap((locale) =>
      cards(locale, NAME).flatMap((card) => {
        const too = (what: string, text: string, max: number) =>
          text.length > max ? [`${locale} ${what} (${text.length} > ${max}): ${text}`] : [];
        return [
          ...too("title", card.title, Math.min(DISCORD_LIMITS.embedTitle, SLACK_LIMITS.headerText)),
          ...card.actions.flatMap((a) =>
            too("button", a.label, Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText)),
          ),
          ...(card.selects ?? []).flatMap((s) => [
            ...(locale === PSEUDO
              ? []
              : too(
                  "placeholder",
                  s.placeholder,
                  Math.min(DISCORD_LIMITS.selectPlaceholder, SLACK_LIMITS.placeholder),
                )),
            ...s.options.flatMap((o) =>
              too("option", o.label, Math.min(DISCORD_LIMITS.selectOptionLabel, SLACK_LIMITS.optionText)),
            ),
          ]),
          ...card.fields.flatMap((f) => [
            ...too("field name", f.name, DISCORD_LIMITS.embedFieldName),
            ...too(
              "field value",
              f.value,
              Math.min(DISCORD_LIMITS.embedFieldValue, SLACK_LIMITS.sectionFieldText),
            ),
          ]),
          ...card.lines.flatMap((line) =>
            typeof line === "string" ? too("line", line, SLACK_LIMITS.sectionText) : [],
          ),
          ...too("footer", card.footer ?? "", Math.min(DISCORD_LIMITS.embedFooter, SLACK_LIMITS.contextText)),
        ];
      }),
    );
    expect(over).toEqual([]);
  });
});
