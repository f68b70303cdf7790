import { z } from "zod";
import type { FormDef } from "../commands/define.js";
import { settingsFor } from "../commands/made-with.js";
import { text } from "../commands/options.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { addPreset, PRESET_NAME_MAX } from "../preferences/presets.js";
import { presetSavedCard } from "../render/presets.js";
import { personOf } from "../tenancy/tenancy.js";
import { defineAction } from "./define.js";

/**
 * Save as preset, under any finished result made with settings: its settings (not its prompt,
 * script, name, seed or files) become one of the clicker's presets, under the name they give.
 */

const nameOptions = z.object({ name: text(PRESET_NAME_MAX, "Name of the preset (1-32 characters)") });
const nameForm: FormDef<typeof nameOptions> = {
  name: "preset.save",
  help: "Save this result's settings (not its prompt) as a preset, to use with the preset option",
  options: nameOptions,
  main: "name",
  submit: "Save",
};

export const savePreset = defineAction({
  name: "save_preset",
  who: "anyone",
  button: { label: msg("action.save_preset") },
  form: { title: "Save as preset", of: () => nameForm },
  appliesTo: (job) => job.state === "done" && Object.keys(settingsFor(job)).length > 0,
  run: async ({ core, job, event, adapter, fields }) => {
    const values = settingsFor(job);
    const saved = await core.preferences.update(personOf(event.actor), (current) => ({
      defaults: current.defaults,
      presets: addPreset(current.presets, { name: fields.name, values, from: job.command }, "yours"),
    }));
    const preset = saved.presets.at(-1)!;
    await adapter.post(
      event.conversation,
      presetSavedCard(preset, "yours", event.actor.platform, translatorFor(readerLocale(event.actor))),
      {
        ephemeral: true,
      },
    );
  },
});
