/**
 * Failures of the storage layer that callers are expected to handle, each with a stable code so
 * the core can map them to a user-facing line without parsing messages.
 */
export type StoreErrorCode =
  /** STORE_URL names a backend this layer does not speak. */
  | "store.config"
  /** The sqlite file cannot be opened, or redis cannot be reached at start. */
  | "store.unreachable"
  /** A stored record does not parse or does not match its schema; `details` says where. */
  | "store.corrupt"
  /** A short internal lock (record update, index update) stayed held by someone else too long. */
  | "store.busy"
  /** A lock expired while its holder was still working, so the write was not made. */
  | "store.claim_lost";

export class StoreError extends Error {
  /** For `store.corrupt`: where the record is and what is wrong with it (never its content). */
  readonly details?: { namespace: string; key: string; issues: string };

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options: { details?: StoreError["details"]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "StoreError";
    this.details = options.details;
  }
}
