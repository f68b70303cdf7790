import { ApplicationCommandOptionType, type CommandInteractionOption } from "discord.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Card, isCard } from "../../../src/core/base/cards.js";
import { BotError } from "../../../src/core/base/errors.js";
import { COMMANDS as CATALOGUE, describeOptions } from "../../../src/core/commands/catalogue.js";
import type { AnyCommand } from "../../../src/core/commands/define.js";
import { parseOptions } from "../../../src/core/commands/validate.js";
import { readOptions } from "../../../src/discord/options.js";
import { readCommandLine } from "../../../src/slack/command-line.js";
import { actor, type Harness, harnessPerFile } from "./harness.js";

/**
 * Property-based fuzzing of what people type, on both platforms, through the real core against
 * the emulator: whatever the input, no exception escapes the bot, a refusal is a clear sentence
 * (a BotError's user message, never the generic "unexpected problem" card), and a refused command
 * makes no creation call at the service. Runs are counted to keep the file to a few seconds.
 */

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

const COMMANDS: AnyCommand[] = [...CATALOGUE];
const UNEXPECTED = /unexpected problem|Something went wrong/;

/** Strings people (and clients) produce: any Unicode, lone surrogates, quotes, dashes, numbers in odd notations. */
const nasty = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc.constantFrom(
    "0x10",
    "1e3",
    "-1",
    "99999999999999999999",
    "NaN",
    "Infinity",
    "1.5",
    "",
    " ",
    "\u{1F98A}".repeat(40),
    "\uD83E",
    '"',
    "“unclosed",
    "--",
    "—seed",
    "&lt;@U123&gt;",
    "constructor",
    "__proto__",
    "true",
    "16:9",
  ),
);

/** Option names: the command's own, its files', prototype names and junk. */
function optionName(command: AnyCommand) {
  const own = [...describeOptions(command).map((o) => o.name), ...Object.keys(command.files ?? {})];
  return fc.oneof(
    own.length > 0 ? fc.constantFrom(...own) : fc.constant("prompt"),
    fc.constantFrom("constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }).filter((s) => !/\s|=/.test(s)),
  );
}

/** A `/media ...` line: the command's words (or near misses), free text and flags in any order. */
const slackLine = fc
  .constantFrom(...COMMANDS)
  .chain((command) =>
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(command.name.replace(".", " ").replaceAll("_", "-")) },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 20 }) },
      ),
      fc.array(
        fc.oneof(
          nasty.map((word) => (/\s/.test(word) ? `"${word}"` : word)),
          fc
            .tuple(fc.constantFrom("--", "—", "–"), optionName(command), nasty, fc.boolean())
            .map(([dash, name, value, inline]) =>
              inline ? `${dash}${name}=${value}` : `${dash}${name} ${value}`,
            ),
        ),
        { maxLength: 6 },
      ),
    ),
  )
  .map(([words, rest]) => [words, ...rest].join(" "));

/** Discord's typed values for a command's options, plus names Discord would not send. */
function discordOptions(command: AnyCommand) {
  const infos = describeOptions(command);
  const typed = infos.map((info) => {
    const value: fc.Arbitrary<string | number | boolean> =
      info.type === "integer"
        ? fc.integer()
        : info.type === "number"
          ? fc.double({ noNaN: true })
          : info.type === "boolean"
            ? fc.boolean()
            : nasty;
    return fc.option(value, { nil: undefined }).map((v) => ({ name: info.name, value: v, info }));
  });
  return fc
    .tuple(fc.tuple(...typed), fc.array(fc.tuple(optionName(command), nasty), { maxLength: 2 }))
    .map(([known, extra]) => [
      ...known.flatMap(({ name, value, info }): CommandInteractionOption[] =>
        value === undefined
          ? []
          : [{ name, value, type: TYPES[info.type] ?? ApplicationCommandOptionType.String }],
      ),
      ...extra.map(([name, value]) => ({ name, value, type: ApplicationCommandOptionType.String })),
    ]);
}

const TYPES: Record<string, ApplicationCommandOptionType> = {
  integer: ApplicationCommandOptionType.Integer,
  number: ApplicationCommandOptionType.Number,
  boolean: ApplicationCommandOptionType.Boolean,
  string: ApplicationCommandOptionType.String,
};

let user = 0;

/** Runs one command and checks the three properties on what the bot did. */
async function expectSafe(command: string, options: Record<string, unknown>) {
  h.chat.clear();
  const creationsBefore = h.emu.calls.filter((c) => c.method === "POST").length;
  // A fresh person each time: one person's job limit is not what is under test.
  user += 1;
  await h.bot.handleCommand({
    command,
    options,
    attachments: {},
    actor: actor({ userId: `fuzz-${user}` }),
    conversation: { platform: "discord", channelId: "channel-1" },
  });
  const cards = h.chat.posts.map((p) => p.message).filter((m): m is Card => isCard(m));
  for (const card of cards) expect(JSON.stringify(card)).not.toMatch(UNEXPECTED);
  const jobStarted = h.chat.publicPosts().length > 0;
  const refusal = h.chat
    .ephemerals()
    .find((p) => isCard(p.message) && (p.message.tone === "error" || p.message.tone === "warning"));
  if (refusal && !jobStarted) {
    const card = refusal.message as Card;
    expect(card.lines.length).toBeGreaterThan(0);
    expect(h.emu.calls.filter((c) => c.method === "POST").length).toBe(creationsBefore);
  }
}

describe("fuzzed input", () => {
  it("the Slack grammar reads any text without throwing", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        const request = readCommandLine(text);
        expect(typeof request.name).toBe("string");
      }),
      { numRuns: 2_000 },
    );
  });

  it("a Slack command line: no escape, a clear refusal, no creation on refusal", async () => {
    await fc.assert(
      fc.asyncProperty(slackLine, async (line) => {
        const request = readCommandLine(line);
        await expectSafe(request.name, request.options);
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  it("Discord options: no escape, a clear refusal, no creation on refusal", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...COMMANDS)
          .chain((command) => fc.tuple(fc.constant(command), discordOptions(command))),
        async ([command, data]) => {
          const { options } = readOptions(command, data);
          await expectSafe(command.name, options);
        },
      ),
      { numRuns: 150 },
    );
  }, 30_000);

  it("option validation alone throws nothing but a BotError with a sentence for the user", () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...COMMANDS)
          .chain((command) =>
            fc.tuple(
              fc.constant(command),
              fc.dictionary(
                optionName(command),
                fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
              ),
            ),
          ),
        ([command, raw]) => {
          try {
            parseOptions(command, raw);
          } catch (error) {
            expect(error).toBeInstanceOf(BotError);
            expect((error as BotError).userMessage).toMatch(/\S/);
            expect((error as BotError).code).toMatch(/^input\./);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
