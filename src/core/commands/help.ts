import { z } from "zod";
import { flagOf, helpCard } from "../render/help.js";
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
    // Slack takes options as --flags on one line; Discord shows them in its own command UI.
    const flags = (c: AnyCommand) =>
      actor.platform === "slack"
        ? services
            .describe(c)
            .filter((o) => !o.main && !o.secret && o.type !== "file")
            .map(flagOf)
        : [];
    const entries = services
      .commands()
      .map((c) => ({ name: c.name, help: c.help, ...(c.main && { main: c.main }), flags: flags(c) }));
    return { reply: helpCard(entries, options.topic?.replace(" ", ".")) };
  },
});
