/**
 * The root of every error the project throws on purpose: a stable `code` (for logs, metrics and
 * tests; callers branch on it, never on the message) and a `message` that is log detail. The
 * store's, the secrets', the configuration's and the start-up's errors sit right under it;
 * `BotError` (core/base/errors.ts) adds what people are shown.
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
