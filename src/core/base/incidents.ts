import type { Logger } from "pino";
import { toldByTheStore } from "./log.js";
import { loggedError } from "./logged-error.js";

/**
 * One line per incident, not one per retry: the first failure of something retried (a job's
 * delivery, its status reads, its progress edits) is logged; the same failure again is counted,
 * and said again with its count only every `remindMs` while it lasts; a different failure is told
 * at once; the end of the incident says how many failures there were when some were held back.
 * A delivery Discord refuses every 5 minutes for a day then writes 25 lines, not 300 (and the
 * first minutes' quick retries one). The store's outage follows the same rule on its own (store/availability.ts): one
 * outage for the whole process, not one per job, so the failures it causes are left out here.
 *
 * Failures are the same when their type, code and HTTP status are (the message, when the error has
 * neither): a message often carries ids or timings that change from one try to the next.
 */

type Level = "warn" | "error";

interface Open {
  signature: string;
  /** Failures in a row with this signature. */
  count: number;
  /** Of which not yet told. */
  held: number;
  toldAt: number;
}

export interface IncidentsOptions {
  /** How often a continuing incident is said again; an hour by default. */
  remindMs?: number;
  now?: () => number;
  /** Incidents kept at once; the oldest is forgotten beyond (its next failure is told anew). */
  max?: number;
}

export const INCIDENT_REMINDER_MS = 60 * 60_000;

export class Incidents {
  readonly #open = new Map<string, Open>();
  readonly #remindMs: number;
  readonly #now: () => number;
  readonly #max: number;

  constructor(
    private readonly log: Pick<Logger, Level | "info">,
    options: IncidentsOptions = {},
  ) {
    this.#remindMs = options.remindMs ?? INCIDENT_REMINDER_MS;
    this.#now = options.now ?? Date.now;
    this.#max = options.max ?? 10_000;
  }

  /**
   * `key` failed with `fields.err`: logged with `failures` (how many in a row) when it is the first,
   * differs from the last, or the last line is `remindMs` old; else only counted.
   */
  failed(
    key: string,
    fields: { err: unknown } & Record<string, unknown>,
    msg: string,
    level: Level = "warn",
  ) {
    // The store's outage is the store's incident: its failures are neither told nor counted here.
    if (toldByTheStore(fields.err)) return;
    const signature = signatureOf(fields.err);
    const now = this.#now();
    const open = this.#open.get(key);
    if (open?.signature === signature) {
      open.count += 1;
      if (now - open.toldAt < this.#remindMs) {
        open.held += 1;
        return;
      }
      this.log[level]({ ...fields, failures: open.count }, msg);
      open.held = 0;
      open.toldAt = now;
      return;
    }
    this.log[level]({ ...fields, failures: 1, ...(open && { previousFailures: open.count }) }, msg);
    this.#open.delete(key);
    if (this.#open.size >= this.#max) this.#open.delete(this.#open.keys().next().value as string);
    this.#open.set(key, { signature, count: 1, held: 0, toldAt: now });
  }

  /**
   * `key` works again, or is over: with `line`, failures held back since the last line are told
   * (with the whole count), so the log says how long it lasted.
   */
  ended(key: string, line?: { fields: Record<string, unknown>; msg: string }): void {
    const open = this.#open.get(key);
    if (!open) return;
    this.#open.delete(key);
    if (line && open.held > 0) this.log.info({ ...line.fields, failures: open.count }, line.msg);
  }
}

function signatureOf(error: unknown): string {
  const said = loggedError(error);
  if (typeof said === "string") return said;
  const { type, code, status, message } = said;
  return code === undefined && status === undefined ? `${type}|${message}` : `${type}|${code}|${status}`;
}
