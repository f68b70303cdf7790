/**
 * Streams the bot gives up on. An HTTP body closed before its end reports an "aborted" error
 * (undici's RequestAbortedError); with no listener, that event ends the process. Nobody waits for
 * the bytes of a stream given up on, so its errors are no news.
 */

interface Closable {
  destroy?: (error?: Error) => unknown;
  on?: (event: "error", listener: (error: Error) => void) => unknown;
  readableEnded?: boolean;
  destroyed?: boolean;
}

const ignore = () => {};

/** Closes a stream that will not be read (or not to its end), so its source does not hang open. */
export function abandon(stream: unknown): void {
  const closable = stream as Closable | null;
  if (typeof closable?.destroy !== "function" || closable.destroyed) return;
  closable.on?.("error", ignore);
  if (!closable.readableEnded) closable.destroy();
}
