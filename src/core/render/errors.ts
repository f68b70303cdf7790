import type { Usage } from "../api/schemas.js";
import { type Card, card } from "../base/cards.js";
import { BotError } from "../base/errors.js";
import { AccessError } from "../base/refusals.js";
import { usageFields } from "./usage.js";

/**
 * One card per error code: the title names what happened, the first line (the error's own user
 * message) says what to do. Titles are looked up by code prefix, so a new code of a known family
 * still gets a fitting title; every code a BotError can carry has one (test/core/render/error-titles.test.ts).
 */
const TITLES: [prefix: string, title: string][] = [
  ["input.", "Check the command"],
  ["access.", "Not allowed"],
  ["limit.rate", "Slow down"],
  ["limit.budget_unknown", "Try again in a moment"],
  ["limit.budget", "Over budget"],
  ["limit.queue", "Your queue is full"],
  ["limit.", "Too many jobs running"],
  ["setup.", "Setup needed"],
  ["action.choice_unconfirmed", "Checking what the media service did"],
  ["action.", "Nothing to do"],
  ["bot.restarting", "The bot is restarting"],
  ["bot.store_unavailable", "Try again in a moment"],
  ["service.quota_exceeded", "Out of credits or over the plan limit"],
  ["service.unauthorized", "API key not accepted"],
  ["service.forbidden", "Not permitted by the media service"],
  ["service.not_found", "Not found"],
  ["service.failure", "The media service refused"],
  ["service.bad_request", "The media service rejected the request"],
  ["service.rate_limited", "The media service is busy"],
  ["service.unavailable", "The media service is having trouble"],
  ["service.network", "Cannot reach the media service"],
  ["service.timeout", "The media service is slow"],
  ["service.outcome_unknown", "The job may have been created"],
  ["service.link_refused", "The media service refused a file link"],
  ["service.invalid_response", "Unexpected answer from the media service"],
  ["service.", "Media service error"],
  ["upload.failed", "The attachment could not be uploaded"],
  ["upload.", "The attachment could not be sent"],
  ["result.refused", "The bot will not fetch that file"],
  ["chat.undeliverable", "The bot cannot post there"],
  ["chat.file_refused", "The file was not accepted"],
  ["chat.message_gone", "The message was deleted"],
  ["chat.step_ended", "The workflow step had ended"],
  ["slack.org_install", "Install the app in each workspace"],
];

export function errorTitle(code: string): string {
  return TITLES.find(([prefix]) => code.startsWith(prefix))?.[1] ?? "Something went wrong";
}

export interface ErrorCardExtras {
  /** Account figures, for credit and quota failures. */
  usage?: Usage;
  /** Short id that finds the log line of an unexpected error. */
  reference?: string;
}

export function errorCard(error: unknown, extras: ErrorCardExtras = {}): Card {
  if (error instanceof BotError) {
    return card(errorTitle(error.code), error.code.startsWith("input.") ? "warning" : "error", {
      lines: [error instanceof AccessError ? error.line : error.userMessage],
      fields: extras.usage ? usageFields(extras.usage) : [],
      footer: extras.reference ? `Reference ${extras.reference}` : undefined,
    });
  }
  return card("Something went wrong", "error", {
    lines: [
      "The bot hit an unexpected problem and did not finish. Try again; if it keeps happening, give the operator the reference below.",
    ],
    footer: extras.reference ? `Reference ${extras.reference}` : undefined,
  });
}
