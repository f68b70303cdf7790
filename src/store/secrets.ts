import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { CodedError } from "../common/coded-error.js";

/**
 * Encryption at rest of tenant API keys: AES-256-GCM with a key from SECRETS_KEY.
 *
 * Stored form: `v1:<iv>:<tag>:<ciphertext>`, each part base64url; the version names the cipher
 * and key handling, so a later scheme can be read beside this one. Every secret is bound to a
 * context string (the tenant it belongs to) as GCM additional data, so a ciphertext copied onto
 * another tenant's record does not decrypt there.
 *
 * Nothing here logs, and no error message carries a plaintext or a ciphertext.
 */

export type SecretsErrorCode =
  /** No SECRETS_KEY is configured, so no secret can be stored or read. */
  | "secrets.no_key"
  /** The stored value is not in a format this version writes. */
  | "secrets.malformed"
  /** Authentication failed: another SECRETS_KEY, another context, or a tampered value. */
  | "secrets.undecryptable";

export class SecretsError extends CodedError {
  constructor(
    readonly code: SecretsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SecretBox {
  /** "raw" for 32 bytes given as base64 or hex; "passphrase" when the key was derived with scrypt. */
  readonly keySource: "raw" | "passphrase";
  encrypt(plaintext: string, context: string): string;
  decrypt(stored: string, context: string): string;
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Fixed on purpose: the derived key must be the same on every start and every instance, and the
 * passphrase is the secret. A random salt would have to be stored next to the data it protects.
 */
const PASSPHRASE_SALT = "media-bot/secrets-key/v1";

export function createSecretBox(secretsKey: string): SecretBox {
  const { key, keySource } = keyFrom(secretsKey);
  return {
    keySource,
    encrypt(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(":");
    },
    decrypt(stored, context) {
      const [version, iv, tag, ciphertext, ...rest] = stored.split(":");
      if (
        version !== VERSION ||
        iv === undefined ||
        tag === undefined ||
        ciphertext === undefined ||
        rest.length
      ) {
        throw new SecretsError("secrets.malformed", "the stored secret is not in the v1 format");
      }
      const ivBytes = Buffer.from(iv, "base64url");
      const tagBytes = Buffer.from(tag, "base64url");
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
        throw new SecretsError("secrets.malformed", "the stored secret has a damaged header");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, ivBytes)
          .setAAD(Buffer.from(context, "utf8"))
          .setAuthTag(tagBytes);
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, "base64url")),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        throw new SecretsError(
          "secrets.undecryptable",
          "the stored secret does not decrypt: SECRETS_KEY changed or the value was altered",
        );
      }
    },
  };
}

/** 32 bytes as 64 hex digits or as base64 (standard or url-safe); anything else is a passphrase. */
function keyFrom(secretsKey: string): { key: Buffer; keySource: SecretBox["keySource"] } {
  const text = secretsKey.trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return { key: Buffer.from(text, "hex"), keySource: "raw" };
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, "base64");
    if (key.length === 32) return { key, keySource: "raw" };
  }
  // N = 2^15 costs ~100 ms once per start; it needs 32 MiB, just above node's default maxmem.
  const key = scryptSync(text, PASSPHRASE_SALT, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return { key, keySource: "passphrase" };
}
