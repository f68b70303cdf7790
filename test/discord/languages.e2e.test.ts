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
