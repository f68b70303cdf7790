import type Keyv from "keyv";

/**
 * What the adapter already did, by key, in the bot's store (namespace `slack`), so that a job
 * delivered again after a crash neither posts its notice twice nor uploads its file twice.
 *
 * Slack has no idempotency key of its own (Discord's nonce), and finding an earlier post by
 * reading the channel back would need the history scopes of every channel the bot answers in.
 * A record written after the call leaves one window: a crash between Slack's answer and the
 * write. The core's delivery claim already keeps two processes from running the same delivery.
 */

/** Jobs, and therefore their deliveries, are kept for 30 days. */
const KEEP_MS = 30 * 24 * 60 * 60_000;

export class Ledger {
  constructor(private readonly keyv: Keyv<unknown>) {}

  async has(key: string): Promise<boolean> {
    return (await this.keyv.get(key)) !== undefined;
  }

  /** Runs `act` unless it already ran under `key`; either way resolves with its recorded (JSON) answer. */
  async once<T>(key: string, act: () => Promise<T>): Promise<T> {
    const earlier = await this.keyv.get(key);
    if (earlier !== undefined) return earlier as T;
    const value = await act();
    await this.keyv.set(key, value, KEEP_MS);
    return value;
  }
}
