import { createPublicKey, type KeyObject, verify } from "node:crypto";

/**
 * Discord signs every request to the Interactions Endpoint URL with the application's Ed25519 key:
 * `X-Signature-Ed25519` over `X-Signature-Timestamp` followed by the raw body. The portal shows
 * the public key as 32 raw bytes in hex; node:crypto takes it wrapped in a SubjectPublicKeyInfo.
 */

/** The DER header of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it. */
const ED25519_SPKI_HEADER = Buffer.from("302a300506032b6570032100", "hex");

/**
 * How far a signed timestamp may be from our clock. Discord sends at once and does not retry, so a
 * request older than this is a replay; the window allows for clocks a little apart.
 */
export const SIGNATURE_MAX_AGE_S = 5 * 60;

export function interactionsPublicKey(hex: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_HEADER, Buffer.from(hex, "hex")]),
    format: "der",
    type: "spki",
  });
}

export interface SignedRequest {
  signature: string | undefined;
  timestamp: string | undefined;
  body: Buffer;
}

type Problem = "missing" | "invalid" | "stale";

/** Why a request is refused, or undefined when Discord signed it just now. */
export async function signatureProblem(
  key: KeyObject,
  request: SignedRequest,
  nowMs: number,
): Promise<Problem | undefined> {
  const { signature, timestamp, body } = request;
  if (!signature || !timestamp) return "missing";
  if (!/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp)) return "invalid";
  const signed = Buffer.concat([Buffer.from(timestamp), body]);
  // On libuv's thread pool: a burst's checks (0.1 to 0.2 ms each) leave the event loop to the
  // requests and their answers.
  const valid = await new Promise<boolean>((resolve, reject) => {
    verify(null, signed, key, Buffer.from(signature, "hex"), (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
  if (!valid) return "invalid";
  // Checked after the signature, so that only Discord's own (old) requests are called stale.
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_S) return "stale";
  return undefined;
}
