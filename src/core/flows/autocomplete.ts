import type { Preset } from "../../store/preferences.js";
import type { AutocompleteEvent, Choice } from "../base/ports.js";
import { commandByName } from "../commands/catalogue.js";
import { presetNamed } from "../preferences/presets.js";
import { describeValues } from "../render/presets.js";
import { personOf, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import { admit } from "./admit.js";
import type { Core } from "./core.js";

/** Discord drops an autocomplete answer after 3 s; an empty list in time beats a full one too late. */
const ANSWER_WITHIN_MS = 2_500;

/** The person's presets, then the server's they do not shadow, whose name holds the query. */
async function presetChoices(
  core: Core,
  event: AutocompleteEvent,
  server: readonly Preset[],
): Promise<Choice[]> {
  const mine = (await core.preferences.get(personOf(event.actor))).presets;
  const query = event.query.trim().toLowerCase();
  const choices = [
    ...mine.map((p) => ({ preset: p, label: `${p.name} (yours)` })),
    ...server
      .filter((p) => !presetNamed(mine, p.name))
      .map((p) => ({ preset: p, label: `${p.name} (server)` })),
  ];
  return choices
    .filter(({ preset }) => preset.name.toLowerCase().includes(query))
    .map(({ preset, label }) => ({
      label: `${label}: ${describeValues(preset.values)}`,
      value: preset.name,
    }));
}

/** A gesture `admit` refuses gets no choices: nothing else can be shown there (see admit.ts). */
export async function handleAutocomplete(core: Core, event: AutocompleteEvent): Promise<Choice[]> {
  const command = commandByName(event.command);
  const source = command?.picks?.[event.option];
  if (!source) return [];
  const tenant = tenantOf(event.actor);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Choice[]>((resolve) => {
    timer = setTimeout(() => resolve([]), ANSWER_WITHIN_MS);
  });
  try {
    const settings = await admit(core, {
      kind: "autocomplete",
      actor: event.actor,
      conversation: event.conversation,
      command,
    });
    if (source === "presets") return await presetChoices(core, event, settings.presets);
    const media = await core.media(tenant);
    return await Promise.race([core.cache.choices(tenantKey(tenant), source, media, event.query), late]);
  } catch (error) {
    core.logger.debug(
      { err: error, command: event.command, option: event.option },
      "autocomplete without choices",
    );
    return [];
  } finally {
    clearTimeout(timer);
  }
}
