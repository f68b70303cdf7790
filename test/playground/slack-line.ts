/**
 * What the Slack box completes, straight from the command catalogue the Slack adapter parses
 * with: `/media <group> <sub>`, then `--option value` flags (the main text is free). Options
 * entered only in the form (files) or only in a modal (secrets) are left out.
 */
import { COMMANDS, describeOptions } from "../../src/core/commands/catalogue.js";
import type { MenuCommand } from "./discord-line.js";

export function slackMenu(): MenuCommand[] {
  return COMMANDS.map((command) => ({
    path: command.name.replace(".", " "),
    description: command.help,
    options: describeOptions(command)
      .filter((o) => !o.main && !o.secret && o.type !== "file")
      .map((o) => ({
        name: o.name,
        description: o.description,
        type: o.type,
        required: o.required,
        ...(o.choices && { choices: o.choices }),
      })),
  }));
}
