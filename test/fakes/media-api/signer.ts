import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type Verdict = "ok" | "expired" | "invalid";

function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/**
 * Presigned-looking URLs for the emulator's own storage: S3-style query parameters, an HMAC over
 * path and validity, and an expiry checked against the emulator clock. Holders need no API key,
 * exactly like the real upload and download links.
 */
export class Signer {
  private readonly secret = randomBytes(32);

  constructor(
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {}

  private mac(path: string, date: string, expires: string): Buffer {
    return createHmac("sha256", this.secret).update(`${path}\n${date}\n${expires}`).digest();
  }

  /** `path` plus its signed query string. */
  sign(path: string): string {
    const date = amzDate(this.now());
    const expires = String(Math.max(1, Math.round(this.ttlMs / 1000)));
    const query = new URLSearchParams({
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential": "EMULATOR/media-api/s3/aws4_request",
      "X-Amz-Date": date,
      "X-Amz-Expires": expires,
      "X-Amz-SignedHeaders": "host",
      "X-Amz-Signature": this.mac(path, date, expires).toString("hex"),
    });
    return `${path}?${query}`;
  }

  verify(path: string, query: Record<string, string>): Verdict {
    const date = query["X-Amz-Date"] ?? "";
    const expires = query["X-Amz-Expires"] ?? "";
    const given = Buffer.from(query["X-Amz-Signature"] ?? "", "hex");
    const wanted = this.mac(path, date, expires);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return "invalid";
    const signedAt = Date.parse(
      date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
    );
    return this.now() > signedAt + Number(expires) * 1000 ? "expired" : "ok";
  }
}
