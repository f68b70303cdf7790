import { english, type Translator } from "../i18n/translator.js";
import type { SpendRow } from "../spend/data/model.js";

/**
 * The columns, named in English in every language: spreadsheets, scripts and joins read an export
 * by its header, which must not change with whoever asked for it. The export's card says so.
 */
const HEADER = [
  "time",
  "person",
  "person id",
  "channel",
  "channel id",
  "kind",
  "command",
  "credits",
  "job id",
  "service job id",
  "status",
];

// A spreadsheet runs a cell starting with these as a formula (or DDE command): the apostrophe
// makes it text, and the spreadsheet hides it.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function quoted(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Text: guarded, then quoted (RFC 4180). */
function text(value: string): string {
  return quoted(FORMULA_START.test(value) ? `'${value}` : value);
}

/**
 * An id stays text: a Discord id is 18 or more digits, which a spreadsheet would read as a number
 * and round (123456789012345678 becomes 1.23457E+17); the apostrophe keeps it as written.
 */
function id(value: string): string {
  return /^\d+$/.test(value) ? `'${value}` : text(value);
}

function record(row: SpendRow): string {
  return [
    quoted(row.at),
    text(row.person),
    id(row.userId),
    text(row.channel),
    id(row.channelId),
    text(row.kind),
    text(row.command),
    // A number is never a formula; a negative one (a refund) must stay a number.
    row.credits === null ? "" : String(row.credits),
    // The bot's own ids are base64url and may start with "-", which a spreadsheet would take for a
    // formula: guarded too; the sheet shows them as the chat does.
    text(row.jobId),
    text(row.serviceJobId),
    text(row.status),
  ].join(",");
}

/**
 * The period's jobs as CSV (RFC 4180, CRLF), one row a job: people and channels by name, and by
 * id beside them, what a sheet joins on.
 */
export function spendCsv(rows: readonly SpendRow[]): string {
  return [HEADER.join(","), ...rows.map(record)].map((line) => `${line}\r\n`).join("");
}

/**
 * The export's file name, after the period it holds, its word in `t`'s language (ASCII, as any
 * system saves it) and its day as ISO (the names sort by date). The service names a period by the
 * day it resets: a reset on the 1st ends a month's period (2026-12-01: spending-2026-11.csv), any
 * other day is named by the period's last day (spending-to-2026-12-14.csv).
 */
export function exportFileName(period: string, t: Translator = english()): string {
  const reset = Date.parse(period.slice(0, 10));
  const name = (values: { span: string; month?: string; day?: string }) =>
    `${t.text("spend.export.file", { month: "", day: "", ...values })}.csv`;
  if (!Number.isFinite(reset) || !/^\d{4}-\d{2}-\d{2}/.test(period)) return name({ span: "none" });
  const last = new Date(reset - 86_400_000).toISOString();
  return period.slice(8, 10) === "01"
    ? name({ span: "month", month: last.slice(0, 7) })
    : name({ span: "day", day: last.slice(0, 10) });
}
