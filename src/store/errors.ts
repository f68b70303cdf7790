import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  TimeoutError as RedisTimeoutError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from "@redis/client";
import { CodedError } from "../common/coded-error.js";

/**
 * Failures of the storage layer that callers are expected to handle, each with a stable code so
 * the core can map them to a user-facing line without parsing messages.
 */
export type StoreErrorCode =
  /** STORE_URL names a backend this layer does not speak. */
  | "store.config"
  /** The sqlite file cannot be opened, or redis cannot be reached at start. */
  | "store.unreachable"
  /** A running store stopped answering (redis away, sqlite locked or its disk full): try again later. */
  | "store.unavailable"
  /** A stored record does not parse or does not match its schema; `details` says where. */
  | "store.corrupt"
  /** A short internal lock (record update, index update) stayed held by someone else too long. */
  | "store.busy"
  /** A lock expired while its holder was still working, so the write was not made. */
  | "store.claim_lost";

export class StoreError extends CodedError {
  /** For `store.corrupt`: where the record is and what is wrong with it (never its content). */
  readonly details?: { namespace: string; key: string; issues: string };

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options: { details?: StoreError["details"]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.details = options.details;
  }
}

/**
 * node-redis's errors of a connection that is down, closed, or does not answer in time; and of
 * commands under way on a connection the store closed to follow the primary elsewhere.
 */
const REDIS_AWAY = [
  ClientOfflineError,
  ClientClosedError,
  DisconnectsClientError,
  SocketClosedUnexpectedlyError,
  ConnectionTimeoutError,
  SocketTimeoutError,
  RedisTimeoutError,
  ReconnectStrategyError,
];
/** sqlite's answers that mean "not now" rather than "wrong": locked past the busy timeout, disk full or failing. */
const SQLITE_AWAY = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL)/;

/**
 * Whether `error` says the store is away for now (the same operation may succeed once it is
 * back), as opposed to a fault in the data or the code. Looks through wrappers' causes. A plain
 * socket error (ECONNREFUSED) is not enough: the media service and the chats fail that way too,
 * and their errors are theirs to report.
 */
export function isStoreOutage(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreError) {
      if (e.code === "store.unavailable") return true;
      continue;
    }
    const away = e;
    if (REDIS_AWAY.some((type) => away instanceof type)) return true;
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === "string" && SQLITE_AWAY.test(code)) return true;
  }
  return false;
}
