import type { Actor } from "../base/ports.js";
import { readerLocale } from "../i18n/locale.js";
import { tenantOf } from "../tenancy/tenancy.js";
import { learnLanguages } from "./admit.js";
import type { Core } from "./core.js";

/**
 * The language that speaks to `actor` before a gesture reaches the core: a form, opened as the
 * platform's first answer, in the person's own choice or their tenant's default as well as their
 * platform's language (the order of `readerLocale`). Two store reads; a store that does not
 * answer leaves the platform's language, since the form must open.
 */
export async function formLocale(core: Core, actor: Actor): Promise<string> {
  const reader = { ...actor };
  try {
    await learnLanguages(core, reader, await core.tenancy.settings(tenantOf(actor)));
  } catch (error) {
    core.logger.debug({ err: error, userId: actor.userId }, "language choices not read for a form");
  }
  return readerLocale(reader);
}
