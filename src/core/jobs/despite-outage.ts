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
