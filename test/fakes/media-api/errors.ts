/** An answer with an HTTP error status and a JSON body `{error, ...extra}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A business failure answered as HTTP 200 `{result: "failure", error, ...extra}` (spec section 7). */
export class Failure extends Error {
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new HttpError(400, message, extra);
export const notFound = (message: string) => new HttpError(404, message);

/** How an endpoint reports a business refusal: an HTTP status or the 200 failure envelope. */
export type RefusalForm = number | "failure";

export function refusal(form: RefusalForm, message: string, extra?: Record<string, unknown>): Error {
  return form === "failure" ? new Failure(message, extra) : new HttpError(form, message, extra);
}
