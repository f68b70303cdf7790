import { z } from "zod";
import {
  AUTOMATIC,
  chosenLanguage,
  LANGUAGE_CHOICES,
  LANGUAGE_NAMES,
  withLanguage,
} from "../i18n/languages.js";
import { readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { defineAction, OLD_CONTROL } from "./define.js";

/**
 * The language select of a person's home: their own choice of the bot's language (automatic: the
 * platform's), stored with their defaults. What answers the click is already in the new language.
 */
export const myLanguage = defineAction({
  name: "my_language",
  on: "settings",
  value: z.enum(LANGUAGE_CHOICES, { error: OLD_CONTROL }),
  async run({ event, person, value, preferences }) {
    const saved = await preferences.update(person, (current) => ({
      ...current,
      defaults: withLanguage(current.defaults, value),
    }));
    const chosen = chosenLanguage(saved.defaults);
    if (chosen) event.actor.chosenLocale = chosen;
    else delete event.actor.chosenLocale;
    const t = translatorFor(readerLocale(event.actor));
    // The Presets tab holds the select in a message; the panel stays there.
    return {
      section: "presets",
      notice:
        value === AUTOMATIC
          ? t.text("language.saved_automatic")
          : t.text("language.saved", { language: LANGUAGE_NAMES[value] }),
    };
  },
});
