import { ENGLISH, isMessageKey, type MessageKey } from "../i18n/catalogues.js";
import { type CommandTexts, commandTextsOf, optionDescription } from "../i18n/command-texts.js";
import { type Translator, translatorFor } from "../i18n/translator.js";

/** What these words need of a form (a command's `FormDef`, which this layer does not import). */
interface FormDef {
  readonly name: string;
  readonly help: string;
  readonly submit?: string;
  readonly starts?: unknown;
}

/** What they need of one of its inputs (an `OptionInfo`). */
interface OptionInfo {
  readonly name: string;
  readonly description: string;
  readonly secret?: true;
  readonly file?: { readonly max: number };
}

/**
 * The words of a form (Slack's modals, Discord's) in its reader's language: its title, each
 * input's label and hint, the choices of its selects and its buttons. The commands' own words
 * (names, descriptions, choice labels) are the ones Discord shows for them in that language
 * (`commands/<tag>.json`), so a form says "Seitenverhältnis" where the German command line does;
 * what only a form says is in the catalogue (`locales/home/`). A choice's value, what comes
 * back, stays the English one.
 *
 * English keeps each adapter's own wording, which the caller passes (Slack's "Aspect ratio",
 * Discord's "API key"): these words only replace it in another language.
 */
export class FormWords {
  private readonly texts: CommandTexts;

  constructor(readonly t: Translator) {
    this.texts = commandTextsOf(t.locale);
  }

  get locale(): string {
    return this.t.locale;
  }

  private get english(): boolean {
    return this.t.locale === "en";
  }

  /**
   * The form's title: a follow-up's by its action ("edit"), a message shortcut's by its input
   * ("edit_image"), else the command's name as the language names it ("Bild erzeugen").
   */
  title(
    source: { action: string } | { input: string } | { command: string },
    english: string,
    /** The platform's longest title: a group's command longer is named by itself ("Modifier l'élément"). */
    fits = Number.POSITIVE_INFINITY,
  ): string {
    if (this.english) return english;
    if ("command" in source) return this.commandName(source.command, fits) ?? english;
    const key = `form.title.${"action" in source ? source.action : source.input}`;
    return isMessageKey(key) ? this.t.text(key) : english;
  }

  /** "Bild: erzeugen", "Image : générer": a group's command named as a path, words in their order. */
  private commandName(command: string, fits: number): string | undefined {
    const parts = command.split(".");
    const names = parts.map((_, i) =>
      this.texts.commands[parts.slice(0, i + 1).join(" ")]?.name.replaceAll("_", " "),
    );
    const [group, sub] = names;
    if (group === undefined || (parts.length > 1 && sub === undefined)) return undefined;
    if (sub === undefined) return capital(group);
    const path = capital(this.t.text("form.title.command", { group, command: sub }));
    return path.length <= fits ? path : capital(sub);
  }

  /**
   * What the form says it does, above its inputs: a follow-up's own words (the catalogue's
   * `form.intro.*` whose English is its help), else the command's description in this language.
   */
  intro(form: FormDef): string {
    if (this.english) return form.help;
    const own = INTROS.get(form.help);
    if (own) return this.t.text(own);
    return this.texts.commands[form.name.replaceAll(".", " ")]?.description ?? form.help;
  }

  /** An input's label: the option's name in this language, written as a label ("Erstes Bild"). */
  label(option: string, english: string): string {
    if (this.english) return english;
    const own = `form.option.${option}`;
    if (isMessageKey(own)) return this.t.text(own);
    const name = this.texts.options[option]?.name;
    return name === undefined ? english : labelOf(name, this.t.locale);
  }

  /** What an option asks for, as its command's description of it says in this language. */
  description(form: FormDef, info: OptionInfo): string {
    if (this.english) return info.description;
    const own = `form.option.${info.name}.hint`;
    if (isMessageKey(own)) return this.t.text(own);
    return optionDescription(this.texts, form.name.replaceAll(".", " "), info.name) ?? info.description;
  }

  /** An input's hint: its description, and what a secret or a file input must know. */
  hint(form: FormDef, info: OptionInfo, maxBytes: number): string {
    const description = this.description(form, info);
    if (info.file) {
      return this.t.text("form.hint.files", { description, max: info.file.max, size: { bytes: maxBytes } });
    }
    return info.secret ? this.t.text("form.hint.secret", { description }) : description;
  }

  /**
   * A choice's label (the value stays English): "16:9", "Luxus-Makro", a language in its own
   * words; `english` is the adapter's own label where it has one.
   */
  choice(value: string, english?: string): string {
    if (this.english && english !== undefined) return english;
    return this.texts.choices[value] ?? value;
  }

  /** A select's placeholder, naming its input by `label`. */
  choose(label: string): string {
    // English says "Choose aspect ratio"; German's nouns keep their capital.
    return this.t.text("form.choose", { option: this.english ? label.toLowerCase() : label });
  }

  /** A searched list's placeholder ("Search voices"). */
  search(list: string): string {
    return this.t.text("form.search", { list });
  }

  /** The submit button: the command's own word ("Save"), "Start" for one that starts a job, else "Submit". */
  submit(form: Pick<FormDef, "submit" | "starts">): string {
    if (this.english) return form.submit ?? (form.starts ? "Start" : "Submit");
    const key = `form.submit.${(form.submit ?? (form.starts ? "start" : "submit")).toLowerCase()}`;
    return this.t.text(isMessageKey(key) ? key : "form.submit.submit");
  }

  get close(): string {
    return this.t.text("form.close");
  }
}

/** The follow-ups' and shortcuts' forms' intros, by their English (a form's `help`). */
const INTROS = new Map(
  (Object.keys(ENGLISH) as MessageKey[])
    .filter((key) => key.startsWith("form.intro."))
    .map((key) => [ENGLISH[key], key] as const),
);

export function formWords(locale: string | undefined): FormWords {
  return new FormWords(translatorFor(locale));
}

const ACRONYM = /\b(api|id|url)\b/gi;
/** German writes its nouns with a capital; these words of the option names are none. */
const GERMAN_LOWER = new Set(["bei", "für", "entfernen", "gleichzeitig"]);

/**
 * An option's name (`erstes_bild`, `file_d_attente`, `apiキー`) as a label: words apart, French
 * elisions joined ("File d’attente"), acronyms in capitals, the first letter a capital, and in
 * German every noun.
 */
function labelOf(name: string, locale: string): string {
  let words = name.split("_").filter(Boolean);
  if (locale === "de") words = words.map((w) => (GERMAN_LOWER.has(w) ? w : capital(w)));
  const text = words
    .join(" ")
    .replace(/(^| )([dl]) (?=\p{L})/gu, "$1$2’")
    .replace(ACRONYM, (acronym) => acronym.toUpperCase());
  return capital(text);
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
