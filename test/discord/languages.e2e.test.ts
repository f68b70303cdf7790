import { describe, expect, it } from "vitest";
import { addPseudoLocale, bypasses, PSEUDO } from "../core/i18n/pseudo.js";
import { type DiscordWorld, discordWorldPerFile, isEphemeral, shown } from "./harness.js";

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
