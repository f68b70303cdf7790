import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, SecretsError } from "../../src/store/secrets.js";

const API_KEY = "mk_live_0123456789abcdefSECRET";
const CONTEXT = "discord:123456789012345678";

function expectSecretsError(run: () => unknown, code: SecretsError["code"]): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretsError);
    expect((error as SecretsError).code).toBe(code);
    expect((error as Error).message).not.toContain(API_KEY);
    return;
  }
  expect.fail(`expected ${code}`);
}

describe("secrets", () => {
  const raw = randomBytes(32);

  it.each([
    ["64 hex digits", raw.toString("hex")],
    ["base64", raw.toString("base64")],
    ["base64url", raw.toString("base64url")],
  ])("takes a 32-byte key given as %s and round-trips", (_, key) => {
    const box = createSecretBox(key);
    expect(box.keySource).toBe("raw");
    const stored = box.encrypt(API_KEY, CONTEXT);
    expect(stored).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(box.decrypt(stored, CONTEXT)).toBe(API_KEY);
    // The three spellings are the same key.
    expect(createSecretBox(raw.toString("hex")).decrypt(stored, CONTEXT)).toBe(API_KEY);
  });

  it("derives a stable key from anything else, and says it did", () => {
    const box = createSecretBox("correct horse battery staple");
    expect(box.keySource).toBe("passphrase");
    const stored = box.encrypt(API_KEY, CONTEXT);
    expect(createSecretBox("correct horse battery staple").decrypt(stored, CONTEXT)).toBe(API_KEY);
  });

  it("never shows the plaintext in the ciphertext, and never repeats a ciphertext", () => {
    const box = createSecretBox(raw.toString("hex"));
    const first = box.encrypt(API_KEY, CONTEXT);
    const second = box.encrypt(API_KEY, CONTEXT);
    expect(first).not.toBe(second);
    for (const encoding of ["utf8", "base64", "base64url", "hex"] as const) {
      expect(first).not.toContain(Buffer.from(API_KEY).toString(encoding).slice(0, 12));
    }
  });

  it("rejects another key, another context and every tampered part with a typed error", () => {
    const box = createSecretBox(raw.toString("hex"));
    const stored = box.encrypt(API_KEY, CONTEXT);
    expectSecretsError(
      () => createSecretBox(randomBytes(32).toString("hex")).decrypt(stored, CONTEXT),
      "secrets.undecryptable",
    );
    expectSecretsError(() => box.decrypt(stored, "slack:T0001"), "secrets.undecryptable");

    const parts = stored.split(":");
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, "base64url");
      bytes[0]! ^= 1;
      const tampered = parts.map((part, i) => (i === index ? bytes.toString("base64url") : part)).join(":");
      expectSecretsError(() => box.decrypt(tampered, CONTEXT), "secrets.undecryptable");
    }
  });

  it("rejects what it did not write as malformed", () => {
    const box = createSecretBox(raw.toString("hex"));
    const [, iv, tag, ct] = box.encrypt(API_KEY, CONTEXT).split(":");
    for (const stored of [API_KEY, "", `v2:${iv}:${tag}:${ct}`, `v1:${iv}:${tag}`, `v1:${iv}:AAAA:${ct}`]) {
      expectSecretsError(() => box.decrypt(stored, CONTEXT), "secrets.malformed");
    }
  });
});
