import { describe, expect, it } from "vitest";
import { ACTIONS } from "../../../src/core/actions/catalogue.js";
import { IMAGE_INPUTS, noImageNotice } from "../../../src/core/actions/image-inputs.js";
import type { Card } from "../../../src/core/base/cards.js";
import { card } from "../../../src/core/base/cards.js";
import { COMMANDS } from "../../../src/core/commands/catalogue.js";
import type { FormDef } from "../../../src/core/commands/define.js";
import { formWords } from "../../../src/core/home/form-words.js";
import { knownLocales } from "../../../src/core/i18n/catalogues.js";
import { commandTexts } from "../../../src/core/i18n/command-texts.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { formFields, humanize, optionsOf } from "../../../src/discord/forms.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { formModal } from "../../../src/discord/render/modal.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { formView } from "../../../src/slack/render/form.js";
import { homeView } from "../../../src/slack/render/home.js";
import { missingImage, stepByCallbackId } from "../../../src/slack/steps.js";
import { viewErrors } from "../../fakes/slack/blocks.js";
import { addPseudoLocale, bypasses, PSEUDO } from "../i18n/pseudo.js";

addPseudoLocale();

/** A form as each platform opens it: its definition and where its title comes from. */
interface Opened {
  form: FormDef;
  source: { command: string } | { action: string } | { input: string };
  english: string;
}

/** Every form the bot opens: each command's, each follow-up's (both mockup forms), each shortcut's. */
function everyForm(): Opened[] {
  const commands = COMMANDS.map((command) => ({
    form: command as FormDef,
    source: { command: command.name },
    english: humanize(command.name),
  }));
  const followUps = ACTIONS.flatMap((action) => {
    const form = (action as { form?: { title: string; of: (job: never) => FormDef } }).form;
    if (!form) return [];
    // A follow-up's form may depend on its job: an image's, its asset a product or a logo.
    const forms = ["product", "logo"].map((assetType) =>
      form.of({ command: "image.generate", inputs: { assetType } } as never),
    );
    return [...new Set(forms)].map((def) => ({
      form: def,
      source: { action: action.name },
      english: form.title,
    }));
  });
  const shortcuts = IMAGE_INPUTS.map((input) => ({
    form: input.form,
    source: { input: input.name },
    english: input.title,
  }));
  return [...commands, ...followUps, ...shortcuts];
}

const slackForm = (opened: Opened, locale: string) => {
  const words = formWords(locale);
  const title = "command" in opened.source ? undefined : words.title(opened.source, opened.english);
  return formView(opened.form, {}, { command: opened.form.name, channelId: "C1" }, title, {}, words);
};

/** Discord asks at most five inputs at once: every option of the form, five by five. */
const discordForms = (opened: Opened, locale: string) => {
  const words = formWords(locale);
  const fields = formFields(optionsOf(opened.form), {}, {}, { form: opened.form, words });
  const modals = [];
  for (let i = 0; i < fields.length; i += DISCORD_LIMITS.modalComponents) {
    const some = fields.slice(i, i + DISCORD_LIMITS.modalComponents);
    const title = words.title(opened.source, opened.english, DISCORD_LIMITS.modalTitle);
    modals.push(formModal("mb1form:k", title, some));
  }
  return modals;
};

/** The strings of a rendered body people read: titles, labels, hints, placeholders, options' texts. */
function shown(body: unknown, out: string[] = []): string[] {
  if (Array.isArray(body)) for (const item of body) shown(item, out);
  else if (body && typeof body === "object") {
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === "string" && ["text", "title", "label", "description"].includes(key))
        out.push(value);
      else shown(value, out);
    }
  }
  return out;
}

const descriptions = (modal: { components: unknown[] }) =>
  modal.components.map((c) => (c as { description?: string }).description);

/** A text a renderer had to cut to a limit ends in "…"; no catalogue text does. */
const cutOnes = (body: unknown) => shown(body).filter((text) => text.endsWith("…"));

/** The words people type or the service names, the same in every language: option names, choice values. */
function typedWords(form: FormDef): string[] {
  return optionsOf(form).flatMap((o) => [o.name, ...(o.choices ?? [])]);
}

describe("forms in every language", () => {
  const forms = everyForm();

  it("open every form the bot has", () => {
    expect(forms.length).toBeGreaterThan(COMMANDS.length + IMAGE_INPUTS.length);
    expect(forms.filter((f) => "action" in f.source).length).toBeGreaterThanOrEqual(9);
  });

  for (const locale of knownLocales()) {
    it(`fit Slack's and Discord's limits without a cut in ${locale}`, () => {
      for (const opened of forms) {
        const slack = slackForm(opened, locale);
        const where = `${locale} ${opened.form.name} ${JSON.stringify(opened.source)}`;
        expect(viewErrors(slack), where).toEqual([]);
        // Slack's 24 characters fit English's longest title ("Your negative prompt", 20) and every
        // shipped language's, not 40 % more of it: the pseudo-locale's titles are held to the
        // limit through the shipped ones (this same test, in each of them).
        const titleCut = locale === PSEUDO ? slack.title.text : undefined;
        expect(
          cutOnes(slack).filter((text) => text !== titleCut),
          where,
        ).toEqual([]);
        expect(slack.title.text.length, where).toBeLessThanOrEqual(SLACK_LIMITS.viewTitle);
        if (locale !== PSEUDO) expect(slack.title.text.endsWith("…"), where).toBe(false);
        expect(slack.submit?.text.length ?? 0, where).toBeLessThanOrEqual(SLACK_LIMITS.viewButton);
        expect(slack.close?.text.length ?? 0, where).toBeLessThanOrEqual(SLACK_LIMITS.viewButton);
        for (const modal of discordForms(opened, locale)) {
          // An input's description is its option's, which Discord holds to 100 characters in
          // each shipped language (test/discord/localizations.test.ts): the pseudo-locale's
          // padding of English's longest cannot fit, and is cut as any would be.
          const cuts = cutOnes(modal).filter(
            (text) => locale !== PSEUDO || !descriptions(modal).includes(text),
          );
          expect(cuts, where).toEqual([]);
          expect(modal.title.length, where).toBeLessThanOrEqual(DISCORD_LIMITS.modalTitle);
        }
      }
    });
  }

  it("show no English of their own in the pseudo-locale", () => {
    for (const opened of forms) {
      const typed = typedWords(opened.form);
      const texts = [
        ...shown(slackForm(opened, PSEUDO)),
        ...discordForms(opened, PSEUDO).flatMap((m) => shown(m)),
      ];
      for (const text of texts) expect(bypasses(text, typed), `${opened.form.name}: ${text}`).toEqual([]);
    }
  });

  it("keep English as each platform wrote it", () => {
    const generate = forms.find((f) => "command" in f.source && f.source.command === "image.generate")!;
    const slack = slackForm(generate, "en");
    expect(slack.title.text).toBe("Image generate");
    expect(slack.submit?.text).toBe("Start");
    expect(slack.close?.text).toBe("Cancel");
    expect(JSON.stringify(slack)).toContain('"Choose aspect ratio"');
    const [modal] = discordForms(generate, "en");
    expect(modal!.title).toBe("Image generate");
    expect(shown(modal)).toContain("Aspect ratio");
  });

  it("are French for a French reader: title, labels, hints, choices' labels, buttons; values English", () => {
    const generate = forms.find((f) => "command" in f.source && f.source.command === "image.generate")!;
    const slack = slackForm(generate, "fr");
    expect(slack.title.text).toBe("Image : générer");
    expect(slack.submit?.text).toBe("Lancer");
    expect(slack.close?.text).toBe("Annuler");
    const ratio = slack.blocks.find((b) => b.type === "input" && b.block_id === "aspect_ratio") as {
      label: { text: string };
      element: { placeholder: { text: string }; options: { text: { text: string }; value: string }[] };
    };
    expect(ratio.label.text).toBe("Format");
    expect(ratio.element.placeholder.text).toBe("Choisir : Format");
    expect(ratio.element.options.map((o) => o.value)).toContain("16:9");
    const styles = forms.find((f) => "command" in f.source && f.source.command === "mockup.video")!;
    const style = slackForm(styles, "fr").blocks.find(
      (b) => b.type === "input" && b.block_id === "style",
    ) as {
      element: { options: { text: { text: string }; value: string }[] };
    };
    expect(style.element.options.find((o) => o.value === "neo_noir_night")?.text.text).toBe(
      commandTexts("fr").choices.neo_noir_night,
    );
    const edit = forms.find((f) => "action" in f.source && f.source.action === "edit")!;
    const [modal] = discordForms(edit, "fr");
    expect(modal!.title).toBe("Modifier l’image");
    expect(slackForm(edit, "fr").blocks[0]).toMatchObject({
      text: { text: "Modifier cette image selon un prompt" },
    });
  });

  it("write an option's name in a language as a label: its capitals, elisions and acronyms", () => {
    expect(formWords("de").label("first_frame", "First frame")).toBe("Erstes Bild");
    expect(formWords("de").label("api_key", "API key")).toBe("API Schlüssel");
    expect(formWords("fr").label("queue_length", "Queue length")).toBe("File d’attente");
    expect(formWords("es").label("video_id", "Video ID")).toBe("ID vídeo");
    expect(formWords("ja").label("api_key", "API key")).toBe("APIキー");
    expect(formWords("en").label("api_key", "API key")).toBe("API key");
  });

  it("give every follow-up and shortcut form its own title and intro in the catalogue", () => {
    // The pseudo-locale's words differ from English's wherever they come from a catalogue.
    const pseudo = formWords(PSEUDO);
    for (const opened of forms.filter((f) => !("command" in f.source))) {
      expect(pseudo.title(opened.source, opened.english), opened.english).not.toBe(opened.english);
      expect(pseudo.intro(opened.form), opened.form.help).not.toBe(opened.form.help);
    }
  });
});

describe("the Home tab", () => {
  const many: Card[] = Array.from({ length: 60 }, (_, i) => card(`Card ${i}`, "info", { lines: ["x"] }));
  const cutLine = (locale: string) => {
    const view = homeView(many, translatorFor(locale));
    expect(view.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.viewBlocks);
    return JSON.stringify(view.blocks.at(-1));
  };

  it("says in its person's language that the rest did not fit, English as it was", () => {
    expect(cutLine("en")).toContain("The rest is longer than a Home tab can show.");
    expect(cutLine("fr")).toContain("La suite ne tient plus dans l’onglet Accueil.");
    expect(bypasses(JSON.parse(cutLine(PSEUDO)).elements[0].text)).toEqual([]);
  });
});

describe("the workflow steps' messages", () => {
  const edit = stepByCallbackId("edit_image")!;
  const missing = missingImage(edit, { files: {}, links: {} })!;

  it("say a missing image in the person's language, naming the step's inputs as Workflow Builder does", () => {
    expect(translatorFor("en").say(missing)).toBe(
      "Edit an image needs an image: a file in its Image input, or a link in Image URL.",
    );
    expect(translatorFor("fr").say(missing)).toBe(
      "Edit an image a besoin d’une image : un fichier dans son entrée Image, ou un lien dans Image URL.",
    );
    const typed = [edit.title, "Image", "URL", "Person", "user"];
    for (const key of ["step.no_person", "step.ended_first"] as const) {
      expect(bypasses(translatorFor(PSEUDO).text(key, { input: "user" }), typed), key).toEqual([]);
    }
    expect(bypasses(translatorFor(PSEUDO).say(missing), typed)).toEqual([]);
  });
});

describe("a message shortcut used on a message without an image", () => {
  const edit = IMAGE_INPUTS.find((input) => input.name === "edit_image")!;

  it("is told so in the person's language, the menu named as their client names it; English as it was", () => {
    expect(noImageNotice(edit).title).toBe("No image in that message");
    expect(noImageNotice(edit).lines[0]).toMatch(/^Edit image works on a message with an image/);
    const french = noImageNotice(edit, translatorFor("fr"), "Modifier l’image");
    expect(french.title).toBe("Aucune image dans ce message");
    expect(french.lines[0]).toMatch(/^Modifier l’image s’utilise sur un message avec une image/);
    const pseudo = noImageNotice(edit, translatorFor(PSEUDO), "Ḿéñú");
    for (const text of [pseudo.title, String(pseudo.lines[0])])
      expect(bypasses(text, ["PNG", "JPEG", "WEBP"])).toEqual([]);
  });
});
