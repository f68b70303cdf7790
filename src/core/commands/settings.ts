import { z } from "zod";
import type { OptionValue, OptionValues } from "../../store/preferences.js";
import {
  AUTOMATIC,
  chosenLanguage,
  LANGUAGE_CHOICES,
  LANGUAGE_NAMES,
  type LanguageChoice,
  withLanguage,
} from "../i18n/languages.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { type Translator, translatorFor } from "../i18n/translator.js";
import { SETTINGS, type Setting } from "../preferences/layers.js";
import { optionName, sectionOf, valueText } from "../render/settings.js";
import { isAdmin, personOf, tenantOf } from "../tenancy/tenancy.js";
import { changedDefaults } from "./default-options.js";
import { defineCommand } from "./define.js";
import { AccessError } from "./errors.js";
import { SETTING_OPTIONS } from "./setting-options.js";

/**
 * `settings`: bare, the person's settings panel (their defaults, presets, jobs and spending);
 * with options, sets defaults under the commands' own option names, the person's or (admins,
 * `scope:server`) the server's, and shows the panel with what changed.
 */

const SCOPES = ["mine", "server"] as const;
const CLEARABLE = [...SETTINGS, "all"] as const;

const spoken = (option: string, value: OptionValue, t: Translator) =>
  t.text("settings.saved.item", { option: optionName(option, t, true), value: valueText(value, t) });

/** A language in its own words; `automatic` as typed. */
const languageWord = (choice: LanguageChoice) => (choice === AUTOMATIC ? AUTOMATIC : LANGUAGE_NAMES[choice]);

/** `defaults` with the language chosen, when one was. */
const withChoice = (defaults: OptionValues, choice: LanguageChoice | undefined) =>
  choice === undefined ? defaults : withLanguage(defaults, choice);

export const settings = defineCommand({
  name: "settings",
  help: "Your defaults, presets, jobs and spending; with options, set your defaults",
  options: z.object({
    ...SETTING_OPTIONS,
    scope: z
      .enum(SCOPES)
      .describe("Whose defaults to set: yours (mine, the default) or, for admins, the server's")
      .optional(),
    clear: z.enum(CLEARABLE).describe("A default to remove (all: every one)").optional(),
    language: z
      .enum(LANGUAGE_CHOICES)
      .describe("The language the bot speaks to you in (automatic: your app's)")
      .optional(),
  }),
  picks: { avatar: "avatars", voice: "voices" },
  ephemeral: true,
  usesService: false,
  async run({ options, actor, conversation, settings: tenant, services }) {
    const { scope = "mine", clear, language, ...values } = options;
    const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<
      Record<Setting, OptionValue>
    >;
    const server = scope === "server";
    if (Object.keys(set).length === 0 && clear === undefined && language === undefined) {
      return { reply: await services.panel(actor, conversation, server ? { section: "server" } : {}) };
    }
    const cleared = clear === undefined ? [] : [clear];
    if (server) {
      if (!isAdmin(actor, tenant)) {
        throw new AccessError(
          "access.admin_only",
          msg("refusal.access.admin_defaults_scope", { place: actor.platform, scope: "scope" }),
        );
      }
      await services.tenants.update(tenantOf(actor), {
        defaults: withChoice(changedDefaults(tenant.defaults, set, cleared), language),
      });
    } else {
      const saved = await services.preferences.update(personOf(actor), (current) => ({
        ...current,
        defaults: withChoice(changedDefaults(current.defaults, set, cleared), language),
      }));
      // What answers this gesture is in the language just chosen.
      const chosen = chosenLanguage(saved.defaults);
      if (chosen) actor.chosenLocale = chosen;
      else delete actor.chosenLocale;
    }
    // Said in the language the person reads now (the one just chosen, if they chose one).
    const t = translatorFor(readerLocale(actor));
    const said = [
      ...(language === undefined
        ? []
        : [t.text("settings.saved.language", { language: languageWord(language) })]),
      ...Object.entries(set).map(([option, value]) => spoken(option, value, t)),
      ...cleared.map((option) =>
        option === "all"
          ? t.text("settings.saved.all_cleared")
          : t.text("settings.saved.cleared", { option: optionName(option, t) }),
      ),
    ];
    const first = Object.keys(set)[0];
    const section = server ? "server" : first === undefined ? "defaults" : sectionOf(first);
    const notice = t.text("settings.saved", {
      scope,
      place: actor.platform,
      items: said.join(t.text("settings.items_separator")),
    });
    return { reply: await services.panel(actor, conversation, { section, notice }) };
  },
});
