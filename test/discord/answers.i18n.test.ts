import { Readable } from "node:stream";
import { DiscordAPIError } from "discord.js";
import { describe, expect, it } from "vitest";
import { card, isCard } from "../../src/core/base/cards.js";
import type { BotError, FileRefusedError } from "../../src/core/base/errors.js";
import type { ChatAdapter, Message } from "../../src/core/base/ports.js";
import { linkingRefusedFiles } from "../../src/core/flows/refused-files.js";
import type { Msg } from "../../src/core/i18n/msg.js";
import { translatorFor } from "../../src/core/i18n/translator.js";
import { divertedCard } from "../../src/core/render/job.js";
import { ANSWERS, chatErrorOf, deleteErrorOf } from "../../src/discord/answers.js";
import { filesOf, type Uploader } from "../../src/discord/files.js";
import type { RenderedMessage } from "../../src/discord/render/message.js";
import { addPseudoLocale, bypasses, PSEUDO } from "../core/i18n/pseudo.js";

/**
 * Discord's refusals (ANSWERS, a refused delete, a file over the upload limit) are said in their
 * reader's language: none keeps English of its own in the pseudo-locale, English reads as before.
 */

addPseudoLocale();

const MB = 1024 * 1024;
const answer = (code: number, status = 403) =>
  new DiscordAPIError({ message: `code ${code}`, code }, code, status, "POST", "/channels/3/messages", {});

const refusalsInAnswers = (): Msg[] =>
  [...ANSWERS.values()].flatMap((a) =>
    a.verdict === "conversation" || a.verdict === "file" ? [a.said!] : [],
  );

const deleteRefusals = (): BotError[] =>
  [50013, 50001, 10003, 50009, 10062].map((code) => deleteErrorOf(answer(code)) as BotError);

/** A file over `uploader`'s limit, refused before anything is sent. */
async function overTheLimit(uploader: Uploader, declared: boolean): Promise<FileRefusedError> {
  const bytes = 12 * MB;
  const rendered = {
    body: {},
    files: [
      {
        name: "big.png",
        file: {
          name: "big.png",
          contentType: "image/png",
          ...(declared && { size: bytes }),
          open: async () => Readable.from([Buffer.alloc(bytes)]),
        },
      },
    ],
  } as unknown as RenderedMessage;
  return filesOf(rendered, uploader).then(
    () => {
      throw new Error("the file was taken");
    },
    (error: unknown) => error as FileRefusedError,
  );
}

const uploaders: Uploader[] = [
  { bytes: 10 * MB, where: "server" },
  { bytes: 10 * MB, where: "dm" },
  { bytes: 10 * MB, where: "command" },
];

async function uploadRefusals(): Promise<FileRefusedError[]> {
  const refused = await Promise.all(
    uploaders.flatMap((u) => [overTheLimit(u, true), overTheLimit(u, false)]),
  );
  const noAttaching = await overTheLimit(
    { bytes: 10 * MB, where: "server", refused: { key: "platform.discord.no_attaching" } },
    true,
  );
  return [...refused, noAttaching];
}

describe("Discord's refusals in the reader's language", () => {
  it("show no English of their own in the pseudo-locale: every refusal in ANSWERS, a delete's, an upload's", async () => {
    const t = translatorFor(PSEUDO);
    const said = [
      ...refusalsInAnswers(),
      ...deleteRefusals().map((e) => e.said),
      ...(await uploadRefusals()).map((e) => e.said),
    ];
    expect(said.length).toBeGreaterThan(100);
    for (const s of said) {
      expect(typeof s, JSON.stringify(s)).toBe("object");
      expect(bypasses(t.say(s as Msg), ["big.png"]), t.say(s as Msg)).toEqual([]);
    }
  });

  it("read as before in English, and each error keeps English for its log", async () => {
    for (const [code, a] of ANSWERS) {
      if (a.verdict !== "conversation" && a.verdict !== "file") continue;
      const error = chatErrorOf(answer(code)) as BotError;
      expect(error.userMessage).toBe(translatorFor("en").say(a.said!));
      expect(error.userMessage, `code ${code}`).toMatch(/^[A-Z].+\.$/);
    }
    expect(ANSWERS.get(50013)!.reason).toBe(
      "The bot may not post in this channel. A server admin can give it Send Messages, Embed Links and Attach Files there.",
    );
    expect(deleteRefusals().map((e) => e.userMessage)).toEqual([
      "Discord did not let the bot delete this message (a message not the bot's own needs Manage Messages in its channel), so it stays.",
      "The bot can no longer see this message's channel, so it cannot delete the message there.",
      "This message's channel no longer exists.",
      "Discord refused to delete this message, so it stays.",
      "Discord lets the bot reach this reply only through a click on it: use Delete on the message itself, or Dismiss message under it.",
    ]);
    expect((await uploadRefusals()).map((e) => e.userMessage)).toEqual([
      'Discord takes files of up to 10 MB from the bot in this server, and "big.png" is 12 MB.',
      'Discord takes files of up to 10 MB from the bot in this server, and "big.png" is larger.',
      'Discord takes files of up to 10 MB from the bot in a direct message, and "big.png" is 12 MB.',
      'Discord takes files of up to 10 MB from the bot in a direct message, and "big.png" is larger.',
      'Discord takes files of up to 10 MB from the bot through your command, and "big.png" is 12 MB.',
      'Discord takes files of up to 10 MB from the bot through your command, and "big.png" is larger.',
      "The bot may not attach files in this channel (a server admin can give it Attach Files here).",
    ]);
  });

  it("tell a German reader in German, on the card that shows them", async () => {
    const shown: Message[] = [];
    let refusals = 1;
    const adapter = {
      platform: "discord",
      async post(_target: unknown, message: Message) {
        if (refusals-- > 0) throw chatErrorOf(answer(40005, 413));
        shown.push(message);
        return { channelId: "3", messageId: "4" };
      },
    } as unknown as ChatAdapter;
    const file = { name: "fox.png", contentType: "image/png", open: async () => Readable.from([]) };
    const result = card("Bild: ein Fuchs", "success", {
      media: [{ kind: "image", name: "fox.png", file, url: "https://cdn.example/fox.png" }],
      locale: "de",
    });
    await linkingRefusedFiles(adapter, { info: () => undefined } as never).post(
      { channelId: "3" } as never,
      result,
    );
    const [stripped] = shown;
    expect(isCard(stripped!) && stripped.lines.at(-1)).toMatch(
      /^Discord hat die Datei abgelehnt, weil sie größer ist, als es hier vom Bot annimmt\. /,
    );

    const refused = chatErrorOf(answer(50013)) as BotError;
    expect(divertedCard({ ...result, media: [] }, refused.said).lines[0]).toContain(
      "„Nachrichten senden“, „Links einbetten“ und „Dateien anhängen“",
    );
    expect(refused.userMessage).toContain("Send Messages, Embed Links and Attach Files");
  });
});
