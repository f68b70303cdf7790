import { z } from "zod";
import type { OptionValues } from "../../store/preferences.js";
import { changedDefaults, defaultChoices, defaultValue } from "../commands/default-options.js";
import { AccessError, ActionError } from "../commands/errors.js";
import { SETTING_SCHEMAS } from "../commands/setting-options.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { type Translator, translatorFor } from "../i18n/translator.js";
import { isSetting } from "../preferences/layers.js";
import { CLEAR, optionName, PANEL_SECTIONS, sectionOf, valueText } from "../render/settings.js";
import { tenantOf } from "../tenancy/tenancy.js";
import { defineAction, OLD_CONTROL, type SettingsActionContext } from "./define.js";

/**
 * The settings panel's controls: its tabs, a select per default (the person's, or for admins the
 * server's), the negative prompt's form, and Delete on a preset. Each changes one record under
 * its claim (the person's preferences, the tenant's settings) and names the section to show next.
 */

/** The clicker's words: what a control answers is in their language. */
const readerOf = (ctx: Pick<SettingsActionContext<unknown>, "event">): Translator =>
  translatorFor(readerLocale(ctx.event.actor));

/**
 * What a default's select changes: the option it names, set to the value chosen, or cleared; and
 * what to say of it ("Your default aspect ratio set to 16:9.", "The server's default style cleared.").
 */
function change(
  ctx: SettingsActionContext<string>,
  current: OptionValues,
  scope: "mine" | "server",
): { next: OptionValues; said: string } {
  const option = ctx.target;
  if (!isSetting(option)) throw new ActionError("action.invalid", msg(OLD_CONTROL));
  const t = readerOf(ctx);
  const whose = { scope, place: ctx.person.platform, option: optionName(option, t, true) };
  if (ctx.value === CLEAR) {
    return { next: changedDefaults(current, {}, [option]), said: t.text("settings.default_cleared", whose) };
  }
  const value = defaultValue(option, ctx.value);
  const named = defaultChoices(option, t)?.find((c) => c.value === String(value))?.label;
  return {
    next: changedDefaults(current, { [option]: value }),
    said: t.text("settings.default_set", { ...whose, value: named ?? valueText(value, t) }),
  };
}

export const panel = defineAction({
  name: "panel",
  on: "settings",
  value: z.enum(PANEL_SECTIONS, { error: OLD_CONTROL }),
  async run({ value }) {
    return { section: value };
  },
});

export const myDefault = defineAction({
  name: "my_default",
  on: "settings",
  value: z.string({ error: OLD_CONTROL }),
  async run(ctx) {
    let said = "";
    await ctx.preferences.update(ctx.person, (current) => {
      const changed = change(ctx, current.defaults, "mine");
      said = changed.said;
      return { ...current, defaults: changed.next };
    });
    return { section: sectionOf(ctx.target), notice: said };
  },
});

export const serverDefault = defineAction({
  name: "server_default",
  on: "settings",
  value: z.string({ error: OLD_CONTROL }),
  async run(ctx) {
    if (!ctx.admin) {
      throw new AccessError(
        "access.admin_only",
        msg("refusal.access.admin_defaults", { place: ctx.person.platform }),
      );
    }
    const { next, said } = change(ctx, ctx.settings.defaults, "server");
    await ctx.tenants.update(tenantOf(ctx.person), { defaults: next });
    return { section: "server", notice: said };
  },
});

const negativePromptForm = {
  name: "settings",
  help: "What images and thumbnails should not show when you give no negative prompt. Leave it empty to clear it.",
  options: z.object({ negative_prompt: SETTING_SCHEMAS.negative_prompt.optional() }),
  submit: "Save",
};

export const negativePrompt = defineAction({
  name: "negative_prompt",
  on: "settings",
  form: {
    title: "Your negative prompt",
    of: () => negativePromptForm,
    initial: (current): Record<string, string> => {
      const value = current.defaults.negative_prompt;
      return value === undefined ? {} : { negative_prompt: String(value) };
    },
  },
  async run(ctx) {
    const { person, fields, preferences } = ctx;
    const typed = fields.negative_prompt;
    await preferences.update(person, (current) => ({
      ...current,
      defaults:
        typeof typed === "string"
          ? changedDefaults(current.defaults, { negative_prompt: typed })
          : changedDefaults(current.defaults, {}, ["negative_prompt"]),
    }));
    return {
      section: "defaults",
      notice: readerOf(ctx).text(
        typeof typed === "string" ? "settings.negative_prompt_saved" : "settings.negative_prompt_cleared",
      ),
    };
  },
});

export const deletePreset = defineAction({
  name: "delete_preset",
  on: "settings",
  value: z.string({ error: OLD_CONTROL }),
  async run(ctx) {
    const { person, value, preferences } = ctx;
    let name: string | undefined;
    await preferences.update(person, (current) => {
      name = current.presets.find((p) => String(p.createdAt) === value)?.name;
      return { ...current, presets: current.presets.filter((p) => String(p.createdAt) !== value) };
    });
    return {
      section: "presets",
      notice:
        name === undefined
          ? readerOf(ctx).text("presets.already_deleted")
          : readerOf(ctx).text("presets.deleted", { scope: "mine", name, place: person.platform }),
    };
  },
});
