import { describe, expect, it } from "vitest";
import { localeOf, readerLocale, supported } from "../../../src/core/i18n/locale.js";

describe("the reader's language", () => {
  it("maps each platform's tags to the catalogue of their language", () => {
    // Discord's locales (de, fr, es-ES, es-419, pt-BR, ja) and Slack's (de-DE, ja-JP, pt-BR, es-LA).
    expect(
      ["de", "de-DE", "fr", "fr-FR", "es-ES", "es-419", "es-LA", "pt-BR", "ja", "ja-JP"].map(supported),
    ).toEqual(["de", "de", "fr", "fr", "es", "es", "es", "pt-BR", "ja", "ja"]);
    expect(supported("en-US")).toBe("en");
    expect(supported("en_GB")).toBe("en");
    // Portuguese of Portugal reads the Brazilian catalogue rather than English.
    expect(supported("pt-PT")).toBe("pt-BR");
    expect(supported("zh-CN")).toBeUndefined();
  });

  it("answers in the person's language first, then their server's, then English", () => {
    expect(readerLocale({ locale: "de", placeLocale: "fr" })).toBe("de");
    expect(readerLocale({ locale: "ko", placeLocale: "fr" })).toBe("fr");
    expect(readerLocale({ locale: "ko" })).toBe("en");
    expect(readerLocale(undefined)).toBe("en");
    expect(localeOf([undefined, null, "ja-JP"])).toBe("ja");
  });

  it("puts the person's own choice first and their tenant's default after their platform's language", () => {
    const reader = { chosenLocale: "fr", locale: "de", tenantLocale: "ja", placeLocale: "es-ES" };
    expect(readerLocale(reader)).toBe("fr");
    expect(readerLocale({ ...reader, chosenLocale: undefined })).toBe("de");
    // A client in a language the bot does not speak, or none given (Slack): the tenant's default.
    expect(readerLocale({ ...reader, chosenLocale: undefined, locale: "ko" })).toBe("ja");
    expect(readerLocale({ tenantLocale: "ja", placeLocale: "es-ES" })).toBe("ja");
    expect(readerLocale({ locale: "ko", placeLocale: "es-ES" })).toBe("es");
  });
});
