import { commandByName } from "../commands/catalogue.js";
import type { AutocompleteEvent, Choice } from "../ports.js";
import { tenantKey, tenantOf } from "../tenancy.js";
import { admit } from "./admit.js";
import type { Core } from "./core.js";

/** Discord drops an autocomplete answer after 3 s; an empty list in time beats a full one too late. */
const ANSWER_WITHIN_MS = 2_500;

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
    await admit(core, {
      kind: "autocomplete",
      actor: event.actor,
      conversation: event.conversation,
      command,
    });
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
