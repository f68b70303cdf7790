import { z } from "zod";
import type { OptionValues, Preset } from "../../store/preferences.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import {
  addPreset,
  deletePreset,
  PRESET_LIMIT,
  PRESET_NAME_MAX,
  type PresetOwner,
  renamePreset,
  requirePreset,
} from "../preferences/presets.js";
import { presetSavedCard, presetsCard } from "../render/presets.js";
import { PLACE } from "../render/words.js";
import { isAdmin, personOf, tenantOf } from "../tenancy/tenancy.js";
import { type CommandContext, defineCommand } from "./define.js";
import { AccessError } from "./errors.js";
import { text } from "./options.js";
import { SETTING_OPTIONS, SETTING_PICKS } from "./setting-options.js";

/**
 * preset save, list, rename, delete and publish: named sets of settings a command fills its
 * left-out options from (`preset:Brand`). A person's own presets, and the server's, which admins
 * publish from theirs. The rules (limits, names) are in preferences/presets.ts.
 */

const presetName = (description: string) => text(PRESET_NAME_MAX, description);
const scope = z
  .enum(["mine", "server"])
  .describe("Your presets (default) or the server's (admins)")
  .optional();

type Scope = z.output<typeof scope>;

/** What a preset command answers is in its person's language. */
const readerOf = (ctx: Pick<CommandContext<unknown>, "actor">) => translatorFor(readerLocale(ctx.actor));

/** Applies `change` to the scope's presets: the server's only for admins. */
async function changePresets(
  ctx: CommandContext<unknown>,
  where: Scope,
  change: (presets: Preset[], owner: PresetOwner) => Preset[],
): Promise<void> {
  const { actor, services, settings } = ctx;
  if (where === "server") {
    const place = PLACE[actor.platform];
    if (!isAdmin(actor, settings)) {
      throw new AccessError(
        "access.admin_only",
        msg("refusal.access.admin_presets", { place: actor.platform }),
      );
    }
    await services.tenants.update(tenantOf(actor), { presets: (current) => change(current, place) });
    return;
  }
  await services.preferences.update(personOf(actor), (current) => ({
    defaults: current.defaults,
    presets: change(current.presets, "yours"),
  }));
}

export const presetSave = defineCommand({
  name: "preset.save",
  help: "Save settings under a name, to use with the preset option of any command",
  options: z.object({ name: presetName("Name of the preset (1-32 characters)"), ...SETTING_OPTIONS }),
  main: "name",
  submit: "Save",
  picks: SETTING_PICKS,
  ephemeral: true,
  async run(ctx) {
    const { name, ...given } = ctx.options;
    const values = Object.fromEntries(
      Object.entries(given).filter(([, value]) => value !== undefined),
    ) as OptionValues;
    let saved: Preset | undefined;
    await changePresets(ctx, "mine", (presets, owner) => {
      const next = addPreset(presets, { name, values, from: null }, owner);
      saved = next.at(-1);
      return next;
    });
    return { reply: presetSavedCard(saved!, "yours", ctx.actor.platform, readerOf(ctx)) };
  },
});

export const presetList = defineCommand({
  name: "preset.list",
  help: "Your presets and the server's, with their settings",
  options: z.object({}),
  ephemeral: true,
  usesService: false,
  async run(ctx) {
    const { actor, services, settings } = ctx;
    const mine = (await services.preferences.get(personOf(actor))).presets;
    return { reply: presetsCard(mine, settings.presets, PRESET_LIMIT, actor.platform, readerOf(ctx)) };
  },
});

export const presetRename = defineCommand({
  name: "preset.rename",
  help: "Rename one of your presets (admins: of the server's)",
  options: z.object({
    name: presetName("The preset's name now"),
    new_name: presetName("Its new name (1-32 characters)"),
    scope,
  }),
  main: "name",
  submit: "Rename",
  ephemeral: true,
  usesService: false,
  async run(ctx) {
    const { name, new_name, scope: where } = ctx.options;
    await changePresets(ctx, where, (presets, owner) => renamePreset(presets, name, new_name, owner));
    return { reply: { text: readerOf(ctx).text("presets.renamed", { name, new_name: new_name.trim() }) } };
  },
});

export const presetDelete = defineCommand({
  name: "preset.delete",
  help: "Delete one of your presets (admins: of the server's)",
  options: z.object({ name: presetName("The preset to delete"), scope }),
  main: "name",
  submit: "Delete",
  ephemeral: true,
  usesService: false,
  async run(ctx) {
    const { name, scope: where } = ctx.options;
    await changePresets(ctx, where, (presets, owner) => deletePreset(presets, name, owner));
    const said = { scope: where ?? "mine", name, place: ctx.actor.platform };
    return { reply: { text: readerOf(ctx).text("presets.deleted", said) } };
  },
});

export const presetPublish = defineCommand({
  name: "preset.publish",
  help: "Copy one of your presets to the server's, which everyone can use (admins)",
  options: z.object({ name: presetName("The preset of yours to publish") }),
  main: "name",
  submit: "Publish",
  adminOnly: true,
  ephemeral: true,
  usesService: false,
  async run(ctx) {
    const mine = (await ctx.services.preferences.get(personOf(ctx.actor))).presets;
    const preset = requirePreset(mine, ctx.options.name, "yours");
    let published: Preset | undefined;
    await changePresets(ctx, "server", (presets, owner) => {
      const next = addPreset(presets, preset, owner);
      published = next.at(-1);
      return next;
    });
    return { reply: presetSavedCard(published!, "shared", ctx.actor.platform, readerOf(ctx)) };
  },
});
