import { z } from "zod";
import { commandTextsOf } from "../i18n/command-texts.js";
import { readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { flagOf, helpCard, spoken } from "../render/help.js";
import { type AnyCommand, defineCommand } from "./define.js";
import { text } from "./options.js";

export const help = defineCommand({
  name: "help",
  help: "List the commands, or the commands of one group (image, video, ...)",
  options: z.object({ topic: text(50, "A group or command to explain, e.g. image").optional() }),
  main: "topic",
  ephemeral: true,
  usesService: false,
  async run({ options, services, actor }) {
    const t = translatorFor(readerLocale(actor));
    // What each command does is what Discord shows as its description in the reader's language,
    // where that translates this very help (Discord's is cut at 100 characters).
    const english = commandTextsOf("en").commands;
    const words = commandTextsOf(t.locale).commands;
    const helpOf = (c: AnyCommand) => {
      const path = spoken(c.name);
      return english[path]?.description === c.help ? (words[path]?.description ?? c.help) : c.help;
    };
    // Slack takes options as --flags on one line; Discord shows them in its own command UI.
    const flags = (c: AnyCommand) =>
      actor.platform === "slack"
        ? services
            .describe(c)
            .filter((o) => !o.main && !o.secret && o.type !== "file")
            .map((o) => flagOf(o, t))
        : [];
    const entries = services.commands().map((c) => ({
      name: c.name,
      help: helpOf(c),
      ...(c.main && { main: c.main }),
      flags: flags(c),
    }));
    return { reply: helpCard(entries, options.topic?.replace(" ", "."), t) };
  },
});
