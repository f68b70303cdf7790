import { describe, expect, it } from "vitest";
import { addPseudoLocale, bypasses, PSEUDO } from "../core/i18n/pseudo.js";
import { type DiscordWorld, discordWorldPerFile, ended, isEphemeral, shown } from "./harness.js";

/**
 * Each person is answered in the language of their Discord client (the interaction's `locale`),
 * whatever the language of the others in the same server.
 */

let world: DiscordWorld;

discordWorldPerFile((started) => {
  world = started;
});

const refuseKey = () =>
  world.emu.inject({
    method: "POST",
    path: "/api/image/generate",
    status: 401,
    body: { error: "Invalid API key" },
  });

describe("a refusal in the person's language", () => {
  it("tells a German user in German and an English user of the same server in English", async () => {
    const greta = world.fake.addUser("greta", { locale: "de" });
    refuseKey();
    const german = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "ein Fuchs" },
      user: greta,
    });
    expect(isEphemeral(german)).toBe(true);
    expect(shown(german)).toContain("API-Schlüssel nicht akzeptiert");
    expect(shown(german)).toContain("Ein Admin kann mit dem Befehl setup einen festlegen.");
    expect(shown(german)).not.toContain("API key not accepted");

    refuseKey();
    const english = await world.run({ name: "image", subcommand: "generate", options: { prompt: "a fox" } });
    expect(shown(english)).toContain("API key not accepted");
    expect(shown(english)).not.toContain("Schlüssel");
  });

  it("quotes the service's own reason as it came, inside a Brazilian Portuguese sentence", async () => {
    const joana = world.fake.addUser("joana", { locale: "pt-BR" });
    world.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      status: 400,
      body: { error: "prompt contains blocked words" },
    });
    const answer = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "uma raposa" },
      user: joana,
    });
    expect(shown(answer)).toContain(
      "O serviço de mídia recusou a solicitação: prompt contains blocked words.",
    );
  });
});

describe("the commands in the person's language", () => {
  it("registers German names and descriptions, and a German user's /bild erzeugen reaches the bot as /image generate", async () => {
    const put = world.fake.calls.find((c) => c.method === "PUT" && c.route.endsWith("/commands"));
    const body = put?.json as {
      name: string;
      name_localizations?: Record<string, string>;
      options?: {
        name: string;
        name_localizations?: Record<string, string>;
        description_localizations?: Record<string, string>;
        options?: {
          name: string;
          name_localizations?: Record<string, string>;
          description_localizations?: Record<string, string>;
          choices?: { value: string; name_localizations?: Record<string, string> }[];
        }[];
      }[];
    }[];
    const image = body.find((c) => c.name === "image")!;
    expect(image.name_localizations).toMatchObject({
      de: "bild",
      fr: "image",
      "es-ES": "imagen",
      ja: "画像",
    });
    const generate = image.options!.find((o) => o.name === "generate")!;
    expect(generate.name_localizations?.de).toBe("erzeugen");
    expect(generate.description_localizations?.de).toBe("Ein Bild aus einem Text-Prompt erzeugen");
    const ratio = generate.options!.find((o) => o.name === "aspect_ratio")!;
    expect(ratio.name_localizations?.de).toBe("seitenverhältnis");
    const delivery = generate.options!.find((o) => o.name === "delivery")!;
    expect(delivery.choices?.find((c) => c.value === "private")?.name_localizations?.["pt-BR"]).toBe(
      "privado",
    );
    const settings = body.find((c) => c.name === "settings")!;
    expect(settings.name_localizations?.de).toBe("einstellungen");

    const gisela = world.fake.addUser("gisela", { locale: "de" });
    refuseKey();
    const sent = await world.command({
      name: "bild",
      subcommand: "erzeugen",
      options: { prompt: "ein Fuchs", seitenverhältnis: "16:9" },
      user: gisela,
    });
    // Discord sends the commands' own names whatever the client shows.
    expect(JSON.stringify(sent.payload.data)).toContain('"name":"image"');
    expect(JSON.stringify(sent.payload.data)).toContain('"name":"generate"');
    expect(JSON.stringify(sent.payload.data)).toContain('"name":"aspect_ratio"');
    expect(JSON.stringify(sent.payload.data)).not.toContain("seitenverhältnis");
    const answer = await world.answer(sent);
    expect(shown(answer)).toContain("API-Schlüssel nicht akzeptiert");
  });
});

describe("a language of the person's own choice", () => {
  it("answers a person who chose Français in French though their client is English, until they go back to automatic", async () => {
    const fiona = world.fake.addUser("fiona");
    await world.run({ name: "settings", options: { language: "fr" }, user: fiona });
    refuseKey();
    const french = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "un renard" },
      user: fiona,
    });
    expect(shown(french)).toContain("Clé API refusée");
    expect(shown(french)).not.toContain("API key not accepted");

    await world.run({ name: "settings", options: { language: "automatic" }, user: fiona });
    refuseKey();
    const english = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox" },
      user: fiona,
    });
    expect(shown(english)).toContain("API key not accepted");
  });

  it("offers the language on the settings panel's Presets tab, each in its own words, and answers in the one picked", async () => {
    type Component = {
      type: number;
      custom_id?: string;
      label?: string;
      options?: { label: string; value: string }[];
    };
    const components = (m: { components?: unknown }) =>
      ((m.components ?? []) as { components: Component[] }[]).flatMap((r) => r.components);
    const haru = world.fake.addUser("haru");
    const panel = await world.run({ name: "settings", user: haru });
    const tab = components(panel).find((c) => c.type === 2 && c.label === "Presets")!;
    await world.fake.clickButton(panel, tab.custom_id!, haru);
    const presets = await world.until(() => {
      const now = world.fake.message(panel.id);
      return now && shown(now).includes("Automatic:") ? now : undefined;
    });
    const select = components(presets).find((c) => c.type === 3 && c.options?.some((o) => o.value === "fr"))!;
    // Discord's select options read "Language: Français", as every default's select does.
    expect(select.options?.map((o) => o.label)).toEqual(
      ["Automatic", "English", "Deutsch", "Français", "Español", "Português (Brasil)", "日本語"].map(
        (name) => `Language: ${name}`,
      ),
    );
    await world.fake.selectMenu(presets, select.custom_id!, ["ja"], haru);
    const answered = await world.until(() => {
      const now = world.fake.message(panel.id);
      return now && shown(now).includes("ボットは今後日本語で話します。") ? now : undefined;
    });
    expect(shown(answered)).toContain("ボットは日本語で話します。");
    refuseKey();
    const japanese = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "狐" },
      user: haru,
    });
    expect(shown(japanese)).toContain("API キーが受け付けられませんでした");
  });

  it("answers in the server's language set with /setup language someone whose client's language the bot does not speak, and only them", async () => {
    const admin = world.fake.addUser("ada", { admin: true });
    await world.run({ name: "setup", options: { language: "de" }, user: admin });
    const kim = world.fake.addUser("kim", { locale: "ko" });
    refuseKey();
    const german = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "여우" },
      user: kim,
    });
    expect(shown(german)).toContain("API-Schlüssel nicht akzeptiert");
    // The person's own client language still comes first, and the server's default after it.
    const jun = world.fake.addUser("jun", { locale: "ja" });
    refuseKey();
    const japanese = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "狐" },
      user: jun,
    });
    expect(shown(japanese)).toContain("API キーが受け付けられませんでした");
    refuseKey();
    const english = await world.run({ name: "image", subcommand: "generate", options: { prompt: "a fox" } });
    expect(shown(english)).toContain("API key not accepted");
    await world.run({ name: "setup", options: { language: "automatic" }, user: admin });
  });
});

describe("a bad option in the person's language", () => {
  it("names the option as typed and says in German what is wrong with it", async () => {
    const grete = world.fake.addUser("grete", { locale: "de" });
    const answer = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "   " },
      user: grete,
    });
    expect(isEphemeral(answer)).toBe(true);
    expect(shown(answer)).toContain("Prüf den Befehl");
    expect(shown(answer)).toContain("prompt fehlt");
    expect(shown(answer)).not.toContain("is required");
  });
});

describe("a whole job in the person's language", () => {
  it("shows a German user's job in German from the queue to its result, and a failed one", async () => {
    const gerd = world.fake.addUser("gerd", { locale: "de" });
    world.emu.planNextJob("image", { durationMs: 1500 });
    const sent = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "ein Fuchs im Schnee" },
      user: gerd,
    });
    const done = await world.jobMessage(sent);
    expect(done.embeds[0]?.color).toBe(0x57f287);
    // On the way, each state in German, as the job's message was edited.
    const edits = JSON.stringify(
      world.fake.calls.filter((c) => c.path.includes(sent.token)).map((c) => c.json),
    );
    expect(edits).toContain("In der Warteschlange");
    expect(edits).toContain("In Arbeit");
    expect(edits).toMatch(/Läuft seit \d+ s/);
    expect(shown(done)).toMatch(/Auftrag [\w-]+/);
    // The image is attached, so no download link; the footer names the job in German.
    expect(done.attachments).toHaveLength(1);
    expect(shown(done)).not.toMatch(/Download the image|Job [\w-]+/);
    // The buttons under the result are theirs too.
    const labels = JSON.stringify(done.components);
    expect(labels).toContain('"label":"Neu erzeugen"');
    expect(labels).toContain('"label":"Bearbeiten"');
    expect(labels).not.toContain('"label":"Regenerate"');
    const notice = await world.until(() =>
      world.notices(gerd.id).find((m) => m.content.includes("ist fertig.")),
    );
    expect(notice.content).toContain("ist fertig.");

    world.emu.planNextJob("image", { fail: "unsafe prompt" });
    const failing = await world.command({
      name: "image",
      subcommand: "generate",
      options: { prompt: "noch ein Fuchs" },
      user: gerd,
    });
    const failed = await world.jobMessage(failing, ended);
    expect(shown(failed)).toContain(
      "Der Mediendienst konnte diesen Auftrag nicht abschließen: unsafe prompt.",
    );
    expect(shown(failed)).toContain("prüf das Konto mit dem Befehl usage");
  });
});

describe("the pseudo-locale", () => {
  it("shows a refusal with no English of its own: its title and sentence come from the catalogue", async () => {
    addPseudoLocale();
    const pat = world.fake.addUser("pat", { locale: PSEUDO });
    refuseKey();
    const answer = await world.run({
      name: "image",
      subcommand: "generate",
      options: { prompt: "a fox" },
      user: pat,
    });
    expect(shown(answer)).toContain("ÀÞÍ ķéý ñóţ àççéþţéđ");
    // The command's name is typed as it is, in every language.
    expect(bypasses(shown(answer), ["setup"])).toEqual([]);
  });
});
