import { describe, expect, it } from "vitest";
import { card } from "../../src/core/base/cards.js";
import { NotPostedError, UndeliverableError } from "../../src/core/base/errors.js";
import { withoutFiles } from "../../src/core/flows/refused-files.js";
import { translatorFor } from "../../src/core/i18n/translator.js";
import { answerOf, METHODS_CALLED } from "../../src/slack/answers.js";
import { NotInstalledError } from "../../src/slack/installations.js";
import { addPseudoLocale, bypasses, PSEUDO } from "../core/i18n/pseudo.js";
import documented from "../fakes/slack/documented.json" with { type: "json" };

/**
 * What Slack's refusals tell a person (the `why` of each documented answer of each method the
 * bot calls, a delete's included, and a workspace the bot was removed from) is said in their
 * language: no English of its own in the pseudo-locale, English as before.
 */

addPseudoLocale();

const methods = documented.methods as Record<string, { errors: string[] }>;

/** Every refusal the table gives, once per method and code. */
const refusals = () =>
  [...METHODS_CALLED].flatMap((method) =>
    [...methods[method]!.errors, ...documented.common].flatMap((code) => {
      const meaning = answerOf(method, code);
      return meaning?.said ? [{ method, code, meaning }] : [];
    }),
  );

describe("Slack's refusals in the reader's language", () => {
  it("show no English of their own in the pseudo-locale", () => {
    const t = translatorFor(PSEUDO);
    const all = refusals();
    expect(all.length).toBeGreaterThan(100);
    for (const { method, code, meaning } of all) {
      expect(bypasses(t.say(meaning.said!)), `${method} ${code}`).toEqual([]);
    }
    // A refusal that reaches the core says the same.
    expect(bypasses(t.say(new NotInstalledError("T1").said as never))).toEqual([]);
  });

  it("read as before in English", () => {
    for (const { method, code, meaning } of refusals()) {
      expect(meaning.why, `${method} ${code}`).toBe(translatorFor("en").say(meaning.said!));
      expect(meaning.why, `${method} ${code}`).toMatch(/^[A-Z].*\.$/);
    }
    expect(answerOf("chat.postMessage", "not_in_channel")?.why).toBe(
      "The bot is not a member of this channel, so it cannot post here. Invite it: type /invite and pick the bot.",
    );
    expect(answerOf("chat.delete", "cant_delete_message")?.why).toBe(
      "Slack does not let the bot delete this message: it is not the bot's own.",
    );
    expect(answerOf("chat.postMessage", "token_revoked")?.why).toBe(
      "The bot was removed from this workspace. An admin can install it again.",
    );
  });

  it("tell a German reader in German: a file refused on the card, two refusals in one reason", () => {
    const uploadsOff = answerOf("files.getUploadURLExternal", "file_uploads_disabled")!.said!;
    const shown = withoutFiles(
      card("Bild: ein Fuchs", "success", {
        media: [{ kind: "image", name: "fox.png", url: "https://cdn.example/fox.png", file: {} as never }],
        locale: "de",
      }),
      uploadsOff,
    );
    expect(shown.lines.at(-1)).toMatch(
      /^Die Admins dieses Workspace haben das Hochladen von Dateien ausgeschaltet\. /,
    );

    // The channel and then the DM refused: the job's reason holds both, English for its record.
    const here = new UndeliverableError(answerOf("chat.postMessage", "is_archived")!.said!);
    const dm = new UndeliverableError(answerOf("chat.postMessage", "messages_tab_disabled")!.said!);
    const both = new NotPostedError(
      { key: "refusal.sentences", values: { first: here.said, second: dm.said } },
      {},
    );
    expect(both.userMessage).toBe(`${here.userMessage} ${dm.userMessage}`);
    expect(translatorFor("de").say(both.said as never)).toBe(
      "Dieser Channel ist archiviert. Hol ihn aus dem Archiv, damit der Bot darin posten kann. " +
        "Der Tab „Nachrichten“ des Bots ist in diesem Workspace ausgeschaltet, daher kann er keine Direktnachrichten senden. Ein Admin kann ihn in den Einstellungen der App einschalten.",
    );
  });
});
