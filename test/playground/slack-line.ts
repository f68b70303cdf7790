/**
 * What the Slack box completes, straight from the command catalogue the Slack adapter parses
 * with: `/media <group> <sub>`, the main text's words when it takes only a few (`usage export`),
 * then `--option value` flags. Options entered only in the form (files) or only in a modal
 * (secrets) are left out, and so is a main text that is free.
 */
import { COMMANDS, describeOptions } from "../../src/core/commands/catalogue.js";
import type { MenuCommand } from "./discord-line.js";

export function slackMenu(): MenuCommand[] {
  return COMMANDS.map((command) => ({
    path: command.name.replace(".", " "),
    description: command.help,
    options: describeOptions(command)
      .filter((o) => (!o.main || o.choices) && !o.secret && o.type !== "file")
      .map((o) => ({
        name: o.name,
        description: o.description,
        type: o.type,
        required: o.required,
        ...(o.choices && { choices: o.choices }),
        ...(o.main && { main: true as const }),
      })),
  }));
}
