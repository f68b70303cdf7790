import type { TenantSettings } from "../../store/tenants.js";
import { type AnyListAction, checkedValue, OLD_CONTROL } from "../actions/define.js";
import type { ActionEvent } from "../base/ports.js";
import { commandByName } from "../commands/catalogue.js";
import type { AnyCommand } from "../commands/define.js";
import { ActionError } from "../commands/errors.js";
import { LISTS } from "../commands/lists.js";
import { msg } from "../i18n/msg.js";
import { isListName, type ListName } from "../render/lists.js";
import { admit } from "./admit.js";
import { commandContext } from "./command.js";
import type { Core } from "./core.js";
import { step } from "./pipeline.js";

/**
 * The steps of a click on a list's control (a page, Show): admitted like the list's own command,
 * then run with that command's context for the clicker. `event.jobId` holds the list's name.
 */

export interface ListClick {
  core: Core;
  event: ActionEvent;
  def: AnyListAction;
  admitted?: { list: ListName; command: AnyCommand; settings: TenantSettings };
  value?: unknown;
}

export const admitList = step<ListClick>("admit", async (click) => {
  const { core, event } = click;
  const list = event.jobId;
  const command = isListName(list) ? commandByName(LISTS[list].command) : undefined;
  if (!isListName(list) || !command) throw new ActionError("action.invalid", msg(OLD_CONTROL));
  const { actor, conversation } = event;
  const settings = await admit(core, { kind: event.entry ?? "button", actor, conversation, command });
  click.admitted = { list, command, settings };
});

export const listValue = step<ListClick>("value", (click) => {
  click.value = checkedValue(click.def, click.event);
});

export const runList = step<ListClick>("run", async (click) => {
  const { core, event, def } = click;
  if (!click.admitted) throw new Error("a list's control ran before admit");
  const { list, command, settings } = click.admitted;
  const { actor, conversation } = event;
  await def.run({
    event,
    adapter: core.adapter(actor.platform),
    list,
    command,
    value: click.value,
    context: (options) =>
      commandContext(core, command, { options, attachments: {}, actor, conversation }, settings),
  });
});
