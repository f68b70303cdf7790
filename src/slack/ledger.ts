import type Keyv from "keyv";

/**
 * What the adapter already did, by key, in the bot's store (namespace `slack`), so that a job
 * delivered again after a crash neither posts its notice twice nor uploads its file twice.
 *
 * Slack has no idempotency key of its own (Discord's nonce). A record written after the call
 * leaves one window: a crash between Slack's answer and the write. For what can be found again
 * (a post carrying its key in its metadata, a file in its message's thread: see look-back.ts),
 * the ledger notes when the call began: a repeat that finds that note looks for the earlier
 * result before acting again. A call Slack answered with a refusal (or any answer that certainly
 * changed nothing) drops its note, so that only a crash, or an answer lost on the way, costs a
 * look-back: a retry of a failed upload does not read the thread again. The core's delivery claim
 * already keeps two processes from running the same delivery.
 */

/** As long as finished jobs are kept (JOB_RETENTION_DAYS): no delivery of a job is repeated after that. */
const KEEP_MS = 30 * 24 * 60 * 60_000;

/** Looks for what an interrupted call under the key did, begun at `since` (ms); undefined: not done. */
export type Find<T> = (since: number) => Promise<T | undefined>;

export class Ledger {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly keepMs: number = KEEP_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.keyv.get(key)) !== undefined;
  }

  /** What is kept under `key` (a message's files, for its deletion); undefined when nothing is. */
  async read(key: string): Promise<unknown> {
    return this.keyv.get(key);
  }

  /** Keeps `value` under `key`, as long as the ledger keeps anything. */
  async keep(key: string, value: unknown): Promise<void> {
    await this.keyv.set(key, value, this.keepMs);
  }

  /** Notes that something is under way under `key` (see `has`), until `forget`. */
  async note(key: string): Promise<void> {
    await this.keyv.set(key, this.now(), this.keepMs);
  }

  async forget(key: string): Promise<void> {
    await this.keyv.delete(key);
  }

  /**
   * Runs `act` unless it already ran under `key`; either way resolves with its recorded (JSON)
   * answer. With `find`, a call that began but was never recorded is looked for before acting,
   * unless it failed in a way `leftNothing` says changed nothing.
   */
  async once<T>(
    key: string,
    act: () => Promise<T>,
    find?: Find<T>,
    leftNothing?: (error: unknown) => boolean,
  ): Promise<T> {
    const earlier = await this.keyv.get(key);
    if (earlier !== undefined) return earlier as T;
    if (find) {
      const began = await this.keyv.get(beganKey(key));
      const found = typeof began === "number" ? await find(began) : undefined;
      if (found !== undefined) {
        await this.keyv.set(key, found, this.keepMs);
        return found;
      }
      await this.keyv.set(beganKey(key), this.now(), this.keepMs);
    }
    let value: T;
    try {
      value = await act();
    } catch (error) {
      // Left as it is when the store is away: the next try then looks back, harmlessly.
      if (find && leftNothing?.(error)) await this.keyv.delete(beganKey(key)).catch(() => false);
      throw error;
    }
    await this.keyv.set(key, value, this.keepMs);
    return value;
  }
}

const beganKey = (key: string) => `began:${key}`;
