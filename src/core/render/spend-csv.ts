import type { SpendRow } from "../spend/model.js";

const HEADER = [
  "time",
  "person",
  "channel",
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

function record(row: SpendRow): string {
  return [
    quoted(row.at),
    text(row.userId),
    text(row.channelId),
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

/** The period's jobs as CSV (RFC 4180, CRLF), one row a job; people by user id, what a sheet joins on. */
export function spendCsv(rows: readonly SpendRow[]): string {
  return [HEADER.join(","), ...rows.map(record)].map((line) => `${line}\r\n`).join("");
}
