import { describe, expect, it } from "vitest";
import { readCommandLine } from "../../src/slack/command-line.js";
import { readFlags, splitWords } from "../../src/slack/grammar.js";

const values = (text: string) => splitWords(text).map((w) => w.value);
const flags = (text: string, booleans: string[] = []) => readFlags(splitWords(text), new Set(booleans));

describe("splitWords", () => {
  it("splits on whitespace and keeps straight and curly quoted phrases together", () => {
    expect(values(`a "red fox" “in snow” 'at dusk' ‘by night’ end`)).toEqual([
      "a",
      "red fox",
      "in snow",
      "at dusk",
      "by night",
      "end",
    ]);
  });

  it("accepts the mixed quotes clients produce and keeps apostrophes inside words", () => {
    expect(values(`“a fox's den" 'it’s late’ don’t`)).toEqual(["a fox's den", "it’s late", "don’t"]);
  });

  it("treats an unclosed quote as an ordinary character", () => {
    expect(values(`say "hello there`)).toEqual(["say", '"hello', "there"]);
  });

  it("takes a quoted value right after = as one word", () => {
    expect(values(`--name="my red fox" --seed=7`)).toEqual(["--name=my red fox", "--seed=7"]);
  });

  it("undoes Slack's escaping of & < >", () => {
    expect(values("salt &amp; pepper &lt;b&gt;")).toEqual(["salt", "&", "pepper", "<b>"]);
  });

  it("marks quoted words, which are never flags", () => {
    expect(splitWords(`"--seed" 7`)[0]).toMatchObject({ value: "--seed", quoted: true });
  });
});

describe("readFlags", () => {
  it("reads flags with values anywhere and keeps the free words as the main text", () => {
    expect(flags("a red fox --aspect_ratio 16:9 in snow --seed 7")).toEqual({
      text: "a red fox in snow",
      flags: { aspect_ratio: "16:9", seed: "7" },
    });
  });

  it("accepts --aspect-ratio, upper case and =value for the same option", () => {
    expect(flags("fox --Aspect-Ratio=9:16").flags).toEqual({ aspect_ratio: "9:16" });
  });

  it("takes autocorrected dashes as --", () => {
    expect(flags("fox —seed 7 –name “Red one”").flags).toEqual({ seed: "7", name: "Red one" });
  });

  it("makes a flag given alone true, also before another flag", () => {
    expect(flags("hello --full_body --voice 1", ["full_body"])).toEqual({
      text: "hello",
      flags: { full_body: true, voice: "1" },
    });
    expect(flags("hello --portrait").flags).toEqual({ portrait: true });
  });

  it("lets a yes/no option take only a yes/no word", () => {
    expect(flags("--full_body no hi", ["full_body"])).toEqual({ text: "hi", flags: { full_body: "no" } });
    expect(flags("--full_body hi there", ["full_body"])).toEqual({
      text: "hi there",
      flags: { full_body: true },
    });
  });

  it("keeps words that start with a dash, negative values and quoted flags as text or values", () => {
    expect(flags(`a -ish fox - "--seed" --seed -5`)).toEqual({
      text: "a -ish fox - --seed",
      flags: { seed: "-5" },
    });
  });

  it("keeps line breaks of the main text and treats everything after -- as text", () => {
    expect(flags("Hello.\n\nWelcome back -- --seed 3").text).toBe("Hello.\n\nWelcome back --seed 3");
  });
});

describe("readCommandLine", () => {
  it("finds group and sub, the main text and the options", () => {
    const request = readCommandLine("image generate a red fox in snow --aspect-ratio 16:9 --seed 7");
    expect(request).toMatchObject({
      name: "image.generate",
      options: { prompt: "a red fox in snow", aspect_ratio: "16:9", seed: "7" },
    });
  });

  it("reads single-word commands and hyphenated groups", () => {
    expect(readCommandLine("usage")).toMatchObject({ name: "usage", options: {} });
    expect(readCommandLine("photo-avatar design Anna --portrait")).toMatchObject({
      name: "photo_avatar.design",
      options: { name: "Anna", portrait: true },
    });
  });

  it("lists everything for /media and /media help, and a group for /media <group>", () => {
    expect(readCommandLine("")).toMatchObject({ name: "help", options: {} });
    expect(readCommandLine("help")).toMatchObject({ name: "help", options: {} });
    expect(readCommandLine("image")).toMatchObject({ name: "help", options: { topic: "image" } });
    expect(readCommandLine("help video")).toMatchObject({ name: "help", options: { topic: "video" } });
    expect(readCommandLine("photo-avatar")).toMatchObject({
      name: "help",
      options: { topic: "photo_avatar" },
    });
  });

  it("passes unknown names on for the core to refuse", () => {
    expect(readCommandLine("image bogus a fox")).toEqual({ name: "image.bogus", options: {} });
    expect(readCommandLine("nonsense")).toEqual({ name: "nonsense", options: {} });
  });

  it("never takes an API key from the command line", () => {
    expect(readCommandLine("setup --api_key sk-123 --allowed_channels none").options).toEqual({
      allowed_channels: "none",
    });
  });
});

/**
 * The command is declared with should_escape: true, so Slack sends picked and typed mentions,
 * channels and links as escapes, and a typed "<" as "&lt;". Every command reads them: the budget's
 * `for` as the mention itself, any other option as the words a person wrote.
 */
describe("readCommandLine with Slack's escapes", () => {
  it("gives the budget command the mention of a person, a user group or a channel as Slack sent it", () => {
    expect(readCommandLine("budget <@U0ANN0001|ann> --jobs 2").options).toEqual({
      for: "<@U0ANN0001|ann>",
      jobs: "2",
    });
    expect(readCommandLine("budget <!subteam^S0614TZR7|@designers> --credits 50").options).toEqual({
      for: "<!subteam^S0614TZR7|@designers>",
      credits: "50",
    });
    expect(readCommandLine("budget --for <#C0GENERAL|general> --jobs 1 --kind image").options).toEqual({
      for: "<#C0GENERAL|general>",
      jobs: "1",
      kind: "image",
    });
    expect(readCommandLine("budget <@U0ANN0001> --remove").options).toEqual({
      for: "<@U0ANN0001>",
      remove: true,
    });
  });

  it("reads escapes in a prompt as the words they stand for: names, channels, links, special mentions", () => {
    const request = readCommandLine(
      "image generate a poster of <@U0ANN0001|ann> for <#C0GENERAL|general> and <!subteam^S1|@designers>, see <https://example.com/brief?a=1&amp;b=2> or <mailto:ann@example.com|ann@example.com> <!here> --aspect_ratio 16:9",
    );
    expect(request).toMatchObject({
      name: "image.generate",
      options: {
        prompt:
          "a poster of @ann for #general and @designers, see https://example.com/brief?a=1&b=2 or ann@example.com @here",
        aspect_ratio: "16:9",
      },
    });
  });

  it("reads an escape without a label by its id, and a link's label as the link itself", () => {
    expect(
      readCommandLine("thumbnail generate <@U0ANN0001> in <#C0GENERAL|> at <https://example.com|our site>")
        .options,
    ).toEqual({ prompt: "@U0ANN0001 in #C0GENERAL at https://example.com" });
  });

  it("keeps a typed < > & as text, never an escape, and quoted phrases and flags around escapes as before", () => {
    expect(readCommandLine("image generate &lt;@U0ANN0001&gt; &amp; friends").options).toEqual({
      prompt: "<@U0ANN0001> & friends",
    });
    expect(
      readCommandLine(`image generate "a fox with <@U0ANN0001|ann>" --negative_prompt <#C1|noise> --seed 7`)
        .options,
    ).toEqual({ prompt: "a fox with @ann", negative_prompt: "#noise", seed: "7" });
  });
});
