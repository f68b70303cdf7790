import { z } from "zod";
import { helpCard } from "../render/help.js";
import { defineCommand } from "./define.js";
import { text } from "./options.js";

export const help = defineCommand({
  name: "help",
  help: "List the commands, or the commands of one group (image, video, ...)",
  options: z.object({ topic: text(50, "A group or command to explain, e.g. image").optional() }),
  main: "topic",
  ephemeral: true,
  usesService: false,
  async run({ options, services }) {
    const entries = services
      .commands()
      .map((c) => ({ name: c.name, help: c.help, ...(c.main && { main: c.main }) }));
    return { reply: helpCard(entries, options.topic?.replace(" ", ".")) };
  },
});
