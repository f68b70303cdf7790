import { randomBytes } from "node:crypto";
import { isStoreOutage } from "../../store/errors.js";
import type { MediaApi } from "../api/client.js";
import type { Card } from "../base/cards.js";
import { BotError, QuotaExceededError, StoreAwayError } from "../base/errors.js";
import type { Logger } from "../base/log.js";
import { type Reader, readerLocale } from "../i18n/locale.js";
import { translatorFor } from "../i18n/translator.js";
import { errorCard } from "../render/errors.js";

/**
 * The card for anything a command or a click threw. Known errors say what to do; credit and quota
 * failures add the account's figures; anything else gets a short reference that finds the full
 * error in the log, which is the only place details go. Said in the language of `reader`, the
 * person who is answered (English when unknown).
 */
export async function failureCard(
  error: unknown,
  {
    media,
    logger,
    context,
    reader,
  }: { media?: MediaApi; logger: Logger; context: Record<string, unknown>; reader?: Reader },
): Promise<Card> {
  const t = translatorFor(readerLocale(reader));
  // Whatever step met the outage first: the store's own line in the log says the rest.
  if (isStoreOutage(error))
    return failureCard(new StoreAwayError({ cause: error }), { media, logger, context, reader });
  if (error instanceof QuotaExceededError) {
    logger.info({ ...context, code: error.code, err: error }, "quota refusal");
    // Best effort: the refusal is the news, the figures only explain it.
    const usage = await media?.usage.get().catch(() => undefined);
    return errorCard(error, usage ? { usage } : {}, t);
  }
  if (error instanceof BotError) {
    logger.info({ ...context, code: error.code, detail: error.message }, "refused");
    return errorCard(error, {}, t);
  }
  const reference = randomBytes(4).toString("hex");
  logger.error({ ...context, err: error, reference }, "unexpected error");
  return errorCard(error, { reference }, t);
}
