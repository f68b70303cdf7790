import { randomUUID } from "node:crypto";
import type { LedgerProbe } from "../../store/index.js";
import type { MediaApi } from "../api/client.js";
import type { Usage } from "../api/schemas.js";
import { readingOf } from "./readings.js";

/**
 * The account's figures as the bot reads them, per API key (by its hash), in this process.
 *
 * - A start's probe (the reading before its creation call) is made when the start asks for it;
 *   starts that ask while one is on its way share it. Shared, it is still taken before each of
 *   their charges, which is all attribution needs of it; one probe for a burst of 200 starts
 *   instead of 200.
 * - A view of the account (the Home, the usage command) takes the latest reading of the key if it
 *   is under 30 s old, from a view, a probe or a creation answer, else reads it (shared the same
 *   way). Opening the Home over and over makes at most one GET /api/usage per key every 30 s, and
 *   writes nothing. Each replica reads for itself: sharing a reading through the store would be a
 *   write per reading.
 */

/** The probe before a creation call must not hold a start up when the service is slow to answer it. */
export const PROBE_TIMEOUT_MS = 5_000;
/** How old a reading a view of the account may show. */
export const VIEW_MAX_AGE_MS = 30_000;

export interface Probe {
  usage: Usage;
  /** The ledger's reading of it (undefined without credits_used), one id for every start sharing it. */
  reading: LedgerProbe | undefined;
}

export class AccountReadings {
  private readonly latest = new Map<string, { usage: Usage; at: number }>();
  private readonly asking = new Map<string, Promise<Probe>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A reading made now (or on its way now); undefined when the service did not answer it. */
  async probe(keyId: string, media: MediaApi): Promise<Probe | undefined> {
    return this.read(keyId, media).catch(() => undefined);
  }

  /** The latest reading if under `VIEW_MAX_AGE_MS` old, else a new one; throws when none can be had. */
  async recent(keyId: string, media: MediaApi): Promise<Usage> {
    const known = this.latest.get(keyId);
    if (known && this.now() - known.at < VIEW_MAX_AGE_MS) return known.usage;
    return (await this.read(keyId, media)).usage;
  }

  /** Figures the bot saw otherwise (a creation answer, the reading right after a call). */
  heard(keyId: string, usage: Usage): void {
    this.latest.set(keyId, { usage, at: this.now() });
  }

  private read(keyId: string, media: MediaApi): Promise<Probe> {
    const asked = this.asking.get(keyId);
    if (asked) return asked;
    const reading = media.usage
      .get({ timeoutMs: PROBE_TIMEOUT_MS })
      .then((usage) => {
        const at = this.now();
        this.heard(keyId, usage);
        const read = readingOf(usage, at);
        return { usage, reading: read && { ...read, id: `probe:${randomUUID()}` } };
      })
      .finally(() => this.asking.delete(keyId));
    this.asking.set(keyId, reading);
    return reading;
  }
}
