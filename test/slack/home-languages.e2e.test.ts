import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.js";
import type { SlackView } from "../fakes/slack/state.js";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * The forms a person opens, from a command or from their Home, in the language they read Slack
 * in; what they choose comes back by its English value, as the command line takes it.
 */

let world: SlackWorld;
let fake: FakeSlack;

slackWorldPerFile((started) => {
  world = started;
  fake = started.fake;
});

const textOf = (value: unknown) => (value as { text?: string } | undefined)?.text;

interface Input {
  block_id: string;
  label: { text: string };
  element: { placeholder?: { text: string }; options?: { text: { text: string }; value: string }[] };
}

const inputOf = (view: SlackView, name: string) =>
  view.blocks.find((b) => b.type === "input" && (b as { block_id?: string }).block_id === name) as
    | Input
    | undefined;

describe("a form in the person's language", () => {
  it("shows a French Slack user the image form in French, and an English user of the same workspace in English; the choice comes back in English", async () => {
    const claire = fake.addUser("claire");
    claire.locale = "fr-FR";

    const french = await world.openForm("image generate", claire.id);
    expect(textOf(french.title)).toBe("Image : générer");
    expect(textOf(french.submit)).toBe("Lancer");
    expect(textOf(french.close)).toBe("Annuler");
    const ratio = inputOf(french, "aspect_ratio")!;
    expect(ratio.label.text).toBe("Format");
    expect(ratio.element.placeholder?.text).toBe("Choisir : Format");
    expect(ratio.element.options?.map((o) => o.value)).toContain("16:9");
    expect(JSON.stringify(french)).not.toContain("Choose aspect ratio");

    const english = await world.openForm("image generate");
    expect(textOf(english.title)).toBe("Image generate");
    expect(textOf(english.submit)).toBe("Start");
    expect(inputOf(english, "aspect_ratio")?.element.placeholder?.text).toBe("Choose aspect ratio");

    // A value the form refuses is said on its field in French; the option's name as typed.
    const refused = await world.submit(french, { prompt: "un renard", seed: "-3" });
    const errors = (refused.body as { errors?: Record<string, string> }).errors ?? {};
    expect(errors.seed).toMatch(/seed/);
    expect(errors.seed).toMatch(/doit valoir au moins 0/);
    const englishRefusal = await world.submit(english, { prompt: "a fox", seed: "-3" });
    expect((englishRefusal.body as { errors: Record<string, string> }).errors.seed).toMatch(
      /seed must be at least 0/,
    );

    const created = world.creations("/api/image/generate").length;
    await world.submit(french, {
      prompt: "un renard dans la neige",
      aspect_ratio: "16:9",
    });
    const made = await world.until(() => world.creations("/api/image/generate")[created]);
    expect(JSON.stringify(made)).toContain("16:9");
  });

  it("opens the negative prompt's form from a French user's Home in French", async () => {
    const louis = fake.addUser("louis");
    louis.locale = "fr-FR";
    await fake.openHome(world.eventsUrl, louis.id);
    await world.until(() => fake.home(louis.id));
    const views = fake.views.length;
    await fake.homeAction(world.eventsUrl, { user: louis.id, actionId: "media:negative_prompt:mine" });
    const form = await world.until(() => fake.views[views]);
    expect(textOf(form.title)).toBe("Votre prompt négatif");
    expect(textOf(form.submit)).toBe("Enregistrer");
    expect(textOf(form.close)).toBe("Annuler");
    expect(JSON.stringify(form.blocks[0])).toContain(
      "Ce que les images et miniatures ne doivent pas montrer",
    );
    expect(inputOf(form, "negative_prompt")?.label.text).toBe("Prompt négatif");
  });

  it("speaks the language a person picked on their Home in the forms they open, though their Slack is English", async () => {
    const paul = fake.addUser("paul");
    await fake.openHome(world.eventsUrl, paul.id);
    await world.until(() => fake.home(paul.id));
    await fake.homeAction(world.eventsUrl, {
      user: paul.id,
      actionId: "media:my_language:mine",
      value: "de",
    });
    await world.until(() =>
      JSON.stringify(fake.home(paul.id)?.blocks ?? []).includes("Deutsch") &&
      JSON.stringify(fake.home(paul.id)?.blocks ?? []).includes("Der Bot")
        ? true
        : undefined,
    );
    const form = await world.openForm("image generate", paul.id);
    expect(textOf(form.title)).toBe("Bild: erzeugen");
    expect(textOf(form.submit)).toBe("Starten");
    expect(inputOf(form, "aspect_ratio")?.label.text).toBe("Seitenverhältnis");
  });
});
