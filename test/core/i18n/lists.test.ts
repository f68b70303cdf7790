import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Card, isCard, plainText } from "../../../src/core/base/cards.js";
import type { Actor } from "../../../src/core/base/ports.js";
import { COMMANDS, describeOptions } from "../../../src/core/commands/catalogue.js";
import { help } from "../../../src/core/commands/help.js";
import { knownLocales } from "../../../src/core/i18n/catalogues.js";
import { translatorFor } from "../../../src/core/i18n/translator.js";
import { flagOf, helpCard } from "../../../src/core/render/help.js";
import { type ListEntry, listCard } from "../../../src/core/render/lists.js";
import { DISCORD_LIMITS } from "../../../src/discord/limits.js";
import { SLACK_LIMITS } from "../../../src/slack/limits.js";
import { givenWords, grammarWords, uncatalogued } from "../../pseudo/check.js";
import { actor, Harness } from "../bot/harness.js";
import { eventually } from "../fake-adapter.js";
import { addPseudoLocale, PSEUDO } from "./pseudo.js";

/**
 * Help, the lists and `/jobs` in the reader's language: no English of their own in the
 * pseudo-locale, German in German, English as it was, and every label, title and field within
 * Discord's and Slack's limits in every language.
 */

addPseudoLocale();

let h: Harness;
beforeAll(async () => {
  // One job at a time per person: the pseudo reader's second job waits its turn.
  h = await Harness.start({ jobLimit: 1 });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const reader = (userId: string, locale: string, more: Partial<Actor> = {}) =>
  actor({ userId, locale, ...more });

/** Every text of a card a person reads, by where it is; the Delete buttons are another area's. */
function readTexts(card: Card): { where: string; text: string }[] {
  return [
    { where: "title", text: card.title },
    ...card.lines.map((line) => ({ where: "line", text: plainText(line) })),
    ...card.fields.flatMap((field) => [
      { where: "field name", text: field.name },
      { where: "field value", text: field.value },
      ...(field.link ? [{ where: "field link", text: field.link.label }] : []),
    ]),
    ...card.links.map((link) => ({ where: "link", text: link.label })),
    ...card.actions
      .filter((action) => action.action !== "delete_result")
      .map((action) => ({ where: "button", text: action.label })),
    ...(card.footer ? [{ where: "footer", text: card.footer }] : []),
  ];
}

/** The answer `who` gets to a command: the card it was shown. */
async function answer(command: string, options: Record<string, unknown>, who: Actor): Promise<Card> {
  await h.command(command, options, { actor: who });
  return h.lastEphemeral();
}

/** Help as a Slack reader gets it (with each option's flag): the command, with the core's catalogue. */
async function slackHelp(locale: string, topic?: string): Promise<Card> {
  const outcome = await help.run({
    options: topic === undefined ? {} : { topic },
    actor: actor({ platform: "slack", locale }),
    services: { commands: () => COMMANDS, describe: describeOptions },
  } as never);
  if (!("reply" in outcome) || !isCard(outcome.reply)) throw new Error("help answered no card");
  return outcome.reply;
}

/** Every group of the catalogue ("image", "setup"), as help takes it. */
const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(".")[0]!))];

describe("help, the lists and the jobs list in the pseudo-locale", () => {
  it("show no English of their own: only commands, options, ids and what the service and people said", async () => {
    const pseudo = reader("pseudo-1", PSEUDO);
    // A running job and one waiting its turn behind it, both the pseudo reader's.
    h.emu.planNextJob("image", { durationMs: 600_000 });
    await h.startJob("image.generate", { prompt: "a red fox" }, { actor: pseudo });
    await h.startJob("image.generate", { prompt: "a blue owl" }, { actor: pseudo });
    const asked: [string, Record<string, unknown>, Actor][] = [
      ["help", {}, pseudo],
      ["help", { topic: "nonsense" }, pseudo],
      ["avatars", {}, pseudo],
      ["voices", {}, pseudo],
      ["voices", { search: "nobody" }, pseudo],
      ["video.list", {}, pseudo],
      ["mockup.list", {}, pseudo],
      ["mockup.assets", {}, pseudo],
      ["mockup.videos", {}, pseudo],
      ["thumbnail.list", {}, pseudo],
      ["jobs", {}, pseudo],
      ["jobs", {}, reader("nobody-yet", PSEUDO)],
      ["jobs", { all: true }, reader("admin-1", PSEUDO, { isAdmin: true })],
    ];
    const allowed = grammarWords();
    // What people typed and the names the service gave its items, read in English first.
    givenWords(["red fox", "blue owl", "nobody", "nonsense"], allowed);
    for (const [command, options] of asked.filter(([command]) => command !== "help" && command !== "jobs")) {
      givenWords(
        (await answer(command, options, actor())).fields.map((f) => f.name),
        allowed,
      );
    }

    const shown: [string, Card][] = [];
    for (const [command, options, who] of asked) shown.push([command, await answer(command, options, who)]);
    for (const group of GROUPS) shown.push([`help ${group}`, await slackHelp(PSEUDO, group)]);
    // A middle page (Previous and Next), a list without buttons (where the rest is), flags.
    givenWords([LONG, UNKNOWN], allowed);
    for (const card of longCards(PSEUDO)) shown.push(["long", card]);
    const english = shown.flatMap(([command, card]) =>
      readTexts(card).flatMap(({ where, text }) => {
        const words = uncatalogued(text, allowed);
        return words.length > 0 ? [`${command} ${where}: ${words.join(" ")} in "${text}"`] : [];
      }),
    );
    expect(english).toEqual([]);
    // The cards were in the pseudo-locale at all (not an empty check): the jobs list's title.
    const jobs = await answer("jobs", {}, pseudo);
    expect(jobs.title).toBe(translatorFor(PSEUDO).text("lists.jobs.title"));
    expect(jobs.lines[0]).toContain(translatorFor(PSEUDO).text("lists.jobs.waiting"));
  });
});

describe("help, the lists and the jobs list in German", () => {
  it("say it in German, dates as Germans write them, English unchanged beside", async () => {
    const german = reader("de-1", "de");
    const done = await h.startJob("image.generate", { prompt: "ein Fuchs" }, { actor: german });
    // Its footer is German ("Auftrag …"), which Harness.finished does not read: its result shown.
    await eventually(() => (h.chat.card(done).tone === "success" ? true : undefined), 15_000);

    const jobs = await answer("jobs", {}, german);
    expect(jobs.title).toBe("Deine Aufträge");
    expect(jobs.fields[0]?.name).toBe("Bild: ein Fuchs");
    expect(jobs.fields[0]?.value).toMatch(
      /^Fertig · gestartet am \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC · Auftrag \S+$/,
    );
    expect(jobs.fields[0]?.link?.label).toBe("Zur Nachricht");
    expect(jobs.footer).toBe("Seite 1 von 1, insgesamt 1.");

    const avatars = await answer("avatars", {}, german);
    expect(avatars.title).toBe("Avatare");
    expect(avatars.fields[0]?.value).toBe("ID cm2yaz9j10008l0qg9npyjgs3 · Stimme 1");
    expect(avatars.footer).toBe("Seite 1 von 1, insgesamt 3.");
    expect((await answer("mockup.list", {}, german)).lines).toEqual([
      "Noch keine Mockups: Erstell eins mit mockup generate.",
    ]);
    expect((await answer("voices", { search: "niemand" }, german)).lines).toEqual([
      "Nichts passt zu „niemand“.",
    ]);

    // A search the page buttons could not carry (42 bytes of UTF-8), refused in the reader's words.
    const accented = { search: "é".repeat(30) };
    expect((await answer("voices", accented, german)).lines.map(plainText).join("\n")).toContain(
      "Zu lang: höchstens 42 Zeichen, weniger mit Akzenten oder Emoji",
    );
    expect((await answer("voices", accented, actor())).lines.map(plainText).join("\n")).toContain(
      "Too long: at most 42 letters, fewer with accents or emoji",
    );

    const image = await slackHelp("de", "image");
    expect(image.title).toBe("Hilfe: image");
    expect(image.fields[0]?.name).toBe("image generate <prompt>");
    expect(image.fields[0]?.value).toMatch(
      /^Ein Bild aus einem Text-Prompt erzeugen\n.*\[--negative-prompt <Text>\]/,
    );
    expect((await slackHelp("de", "video")).fields[0]?.value).toContain("[--avatar <Avatar-ID oder -Name>]");
    expect((await slackHelp("en", "video")).fields[0]?.value).toContain("[--avatar <avatar id or name>]");

    // The same person's job, in an English reader's list of everyone's jobs: the list in English.
    const all = await answer("jobs", { all: true }, actor({ userId: "admin-1", isAdmin: true }));
    expect(all.title).toBe("Everyone's jobs");
    expect(plainText(all.lines.find((line) => plainText(line).startsWith("Bild: ein Fuchs"))!)).toMatch(
      /^Bild: ein Fuchs · Done · @de-1 · \d+ min ago · job \S+ · https:\/\/\S+$/,
    );
  });
});

/** The longest of what a card quotes: a list entry's name, a job's title, a page number. */
const LONG = `${"w".repeat(78)}…`;
const FAR = { page: 9998, totalPages: 9999, totalCount: 99_990 };
/** The longest topic help takes, naming nothing. */
const UNKNOWN = "x".repeat(50);

function longCards(locale: string): Card[] {
  const t = translatorFor(locale);
  const entries: ListEntry[] = Array.from({ length: 10 }, (_, i) => ({
    title: LONG,
    detail: `${LONG} · ${LONG}`,
    show: `item-${i}`,
    link: { label: t.text("lists.jobs.open"), url: "https://chat.invalid/x" },
  }));
  const flags = [
    flagOf({ name: "avatar", type: "string", required: false, pick: "avatars" }, t),
    flagOf({ name: "preset", type: "string", required: false, pick: "presets" }, t),
    flagOf({ name: "seed", type: "integer", required: false }, t),
    flagOf({ name: "negative_prompt", type: "string", required: false }, t),
  ];
  const help = [
    { name: "photo_avatar.selfie", help: LONG, main: "instruction", flags },
    { name: "photo_avatar.design", help: LONG, main: "instruction", flags },
  ];
  return [
    listCard(
      t.text("lists.title", { list: "mockup_videos" }),
      entries,
      FAR,
      { empty: "" },
      { list: "thumbnails" },
      t,
    ),
    listCard(t.text("lists.jobs.title_all"), entries, FAR, { empty: "" }, undefined, t),
    helpCard(help, undefined, t),
    helpCard(help, "photo_avatar", t),
    helpCard(help, UNKNOWN, t),
  ];
}

describe("help's and the lists' limits", () => {
  it("keep buttons, titles, fields and footers within Discord's and Slack's limits in every language", async () => {
    const button = Math.min(DISCORD_LIMITS.buttonLabel, SLACK_LIMITS.buttonText);
    const title = Math.min(DISCORD_LIMITS.embedTitle, SLACK_LIMITS.headerText);
    const cards: [string, Card][] = [];
    for (const locale of knownLocales()) {
      for (const card of longCards(locale)) cards.push([locale, card]);
      // Help's real cards: each group's commands with every flag, the most a help field holds.
      for (const topic of [undefined, ...GROUPS]) cards.push([locale, await slackHelp(locale, topic)]);
    }
    const over = cards.flatMap(([locale, card]) => {
      const checks: [string, string, number][] = [
        ["title", card.title, title],
        ["footer", card.footer ?? "", Math.min(DISCORD_LIMITS.embedFooter, SLACK_LIMITS.contextText)],
        ...card.actions.map((a): [string, string, number] => ["button", a.label, button]),
        ...card.fields.flatMap((f): [string, string, number][] => [
          ["field name", f.name, DISCORD_LIMITS.embedFieldName],
          ["field value", f.value, Math.min(DISCORD_LIMITS.embedFieldValue, SLACK_LIMITS.sectionFieldText)],
        ]),
      ];
      return checks
        .filter(([, text, limit]) => text.length > limit)
        .map(([where, text, limit]) => `${locale} ${where} (${text.length} > ${limit}): ${text}`);
    });
    expect(over).toEqual([]);
    // The long arguments reached the cards: ten Show buttons, the last page's number.
    expect(longCards("de")[0]!.actions.map((a) => a.label)).toContain("10 zeigen");
    expect(longCards("ja")[0]!.footer).toBe("9,998 / 9,999 ページ（全 99,990 件）");
  });
});
