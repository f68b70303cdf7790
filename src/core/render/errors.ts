import type { Usage } from "../api/schemas.js";
import { type Card, card, type Line } from "../base/cards.js";
import { BotError, type Said } from "../base/errors.js";
import type { MessageKey } from "../i18n/catalogues.js";
import { msg } from "../i18n/msg.js";
import { english, type Translator } from "../i18n/translator.js";
import { usageFields } from "./usage.js";

/**
 * One card per error code: the title names what happened, the first line (the error's own user
 * message) says what to do. Titles are looked up by code prefix, so a new code of a known family
 * still gets a fitting title; every code a BotError can carry has one (test/core/render/error-titles.test.ts).
 */
const TITLES: [prefix: string, title: MessageKey][] = [
  ["input.", "error_title.input"],
  ["access.", "error_title.access"],
  ["limit.rate", "error_title.limit_rate"],
  ["limit.budget_unknown", "error_title.try_again"],
  ["limit.budget", "error_title.limit_budget"],
  ["limit.queue", "error_title.limit_queue"],
  ["limit.", "error_title.limit"],
  ["setup.", "error_title.setup"],
  ["action.choice_unconfirmed", "error_title.choice_unconfirmed"],
  ["action.", "error_title.action"],
  ["bot.restarting", "error_title.restarting"],
  ["bot.store_unavailable", "error_title.try_again"],
  ["service.quota_exceeded", "error_title.quota"],
  ["service.unauthorized", "error_title.unauthorized"],
  ["service.forbidden", "error_title.forbidden"],
  ["service.not_found", "error_title.not_found"],
  ["service.failure", "error_title.service_failure"],
  ["service.bad_request", "error_title.bad_request"],
  ["service.rate_limited", "error_title.service_busy"],
  ["service.unavailable", "error_title.service_unavailable"],
  ["service.network", "error_title.network"],
  ["service.timeout", "error_title.timeout"],
  ["service.outcome_unknown", "error_title.outcome_unknown"],
  ["service.link_refused", "error_title.link_refused"],
  ["service.invalid_response", "error_title.invalid_response"],
  ["service.", "error_title.service"],
  ["upload.failed", "error_title.upload_failed"],
  ["upload.", "error_title.upload"],
  ["result.refused", "error_title.result_refused"],
  ["chat.undeliverable", "error_title.undeliverable"],
  ["chat.file_refused", "error_title.file_refused"],
  ["chat.message_gone", "error_title.message_gone"],
  ["chat.delete_refused", "error_title.delete_refused"],
  ["chat.step_ended", "error_title.step_ended"],
  ["slack.org_install", "error_title.org_install"],
];

export function errorTitle(code: string): MessageKey {
  return TITLES.find(([prefix]) => code.startsWith(prefix))?.[1] ?? "error_title.other";
}

export interface ErrorCardExtras {
  /** Account figures, for credit and quota failures. */
  usage?: Usage;
  /** Short id that finds the log line of an unexpected error. */
  reference?: string;
}

/** A card in its reader's language (`t`); English where the reader is not known. */
export function errorCard(error: unknown, extras: ErrorCardExtras = {}, t: Translator = english()): Card {
  const footer = extras.reference ? t.text("error.reference", { reference: extras.reference }) : undefined;
  if (error instanceof BotError) {
    return card(t.text(errorTitle(error.code)), error.code.startsWith("input.") ? "warning" : "error", {
      lines: [saidLine(error.said, t)],
      fields: extras.usage ? usageFields(extras.usage, t) : [],
      footer,
    });
  }
  return card(t.text("error_title.other"), "error", { lines: [t.line(msg("error.unexpected"))], footer });
}

/** What an error tells its person, in `t`'s language: text not yet in the catalogues as it is. */
export function saidLine(said: Said, t: Translator): Line {
  return typeof said === "string" ? said : t.line(said);
}
