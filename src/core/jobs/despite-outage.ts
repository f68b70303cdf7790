import { isStoreOutage, type StoreAvailability } from "../../store/index.js";

/**
 * `write` again each time it fails because the store is away, once the store is back: for the
 * writes that follow a creation call, which cost credits, cannot be undone, and must not be lost.
 * Without `availability` (tests of parts alone) a failure is thrown as it is.
 */
export async function despiteOutage<T>(
  availability: Pick<StoreAvailability, "whenAvailable"> | undefined,
  write: () => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!availability || !isStoreOutage(error)) throw error;
      await availability.whenAvailable();
    }
  }
}

/**
 * Whether a failed store operation is the outage the store's availability already reported once:
 * a recurring scan or heartbeat then says nothing of its own, and tries again at its next tick.
 * A plain socket reset of the store's client reads as the outage too while the store is known away.
 */
export function duringOutage(
  availability: Pick<StoreAvailability, "available"> | undefined,
  error: unknown,
): boolean {
  return isStoreOutage(error) || availability?.available === false;
}
