import type { TenantSettings } from "../../store/tenants.js";
import { type AnySettingsAction, checkedValue } from "../actions/define.js";
import { BotError } from "../base/errors.js";
import type { ActionEvent } from "../base/ports.js";
import type { BotServices } from "../commands/define.js";
import { parseOptions } from "../commands/validate.js";
import { readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { isAdmin, personOf } from "../tenancy/tenancy.js";
import { admit } from "./admit.js";
import type { Core } from "./core.js";
import { type Step, step } from "./pipeline.js";
import { admitHome, type PanelShow, publishHome, settingsPanel } from "./settings.js";

/**
 * The steps of a click on the settings panel's controls: admitted (on a home, by roles only), run
 * on the clicker's own settings, then the panel shown again where it was clicked.
 */

export interface SettingsClick {
  core: Core;
  services: BotServices;
  event: ActionEvent;
  def: AnySettingsAction;
  settings?: TenantSettings;
  value?: unknown;
  fields: Record<string, unknown>;
  /** What the panel shows next, as the action said. */
  shown?: PanelShow;
}

const onHome = (click: Pick<SettingsClick, "event">) => click.event.surface === "home";

/**
 * Shows the panel again once the rest has run, at the section the action named. A refusal on a
 * message is the answer's to post privately; on a home, where nothing can be posted beside it,
 * the home says it on top.
 */
export const panel: Step<SettingsClick> = {
  name: "panel",
  async run(click, next) {
    const { core, services, event } = click;
    const { actor } = event;
    let show: PanelShow;
    try {
      await next();
      show = click.shown ?? {};
    } catch (error) {
      if (!onHome(click)) throw error;
      if (!(error instanceof BotError))
        core.logger.error({ err: error, action: event.action }, "settings control failed");
      const t = translatorFor(readerLocale(actor));
      const text =
        error instanceof BotError
          ? typeof error.said === "string"
            ? error.said
            : t.say(error.said)
          : t.text("settings.failed");
      show = { notice: { tone: "error", text } };
    }
    if (onHome(click)) await publishHome(core, services, actor, show);
    else {
      const card = await settingsPanel(core, services, actor, event.conversation, show);
      await core.adapter(actor.platform).replace(event.conversation, card);
    }
  },
};

export const admitSettings = step<SettingsClick>("admit", async (click) => {
  const { core, event } = click;
  const { actor } = event;
  if (onHome(click)) {
    click.settings = await admitHome(core, actor);
    core.rates.take(actor);
  } else {
    click.settings = await admit(core, {
      kind: event.entry ?? "button",
      actor,
      conversation: event.conversation,
    });
  }
});

export const settingsValue = step<SettingsClick>("value", (click) => {
  click.value = checkedValue(click.def, click.event);
});

export const settingsForm = step<SettingsClick>("form", (click) => {
  const asked = click.def.form?.of();
  if (asked) click.fields = parseOptions(asked, click.event.fields ?? {});
});

export const runSettings = step<SettingsClick>("run", async (click) => {
  const { core, event, def, settings } = click;
  if (!settings) throw new Error("a settings control ran before admit");
  const outcome = await def.run({
    event,
    person: personOf(event.actor),
    settings,
    admin: isAdmin(event.actor, settings),
    target: event.jobId,
    value: click.value,
    fields: click.fields,
    preferences: core.preferences,
    tenants: core.tenancy,
  });
  click.shown = { section: outcome.section, ...(outcome.notice && { notice: outcome.notice }) };
});
