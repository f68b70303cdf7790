import type Keyv from "keyv";
import { z } from "zod";
import { type Json, json } from "../common/types.js";
import { readRecord } from "./records.js";
import { type SecretBox, SecretsError } from "./secrets.js";

/** Which install: a chat platform and its workspace (a Slack team id). */
export interface InstallationRef {
  platform: "slack";
  workspaceId: string;
}

const recordSchema = z.object({
  /** The `v1:...` ciphertext (secrets.ts) of the whole installation: it is full of tokens. */
  installation: z.string().min(1),
  installedAt: z.number().int().nonnegative(),
});

/**
 * An app's installations in keyv namespace `installations`, one record per workspace. What the
 * platform handed over at install (tokens, scopes, the installer) is kept whole and encrypted
 * with the workspace as context, like tenants' API keys: a record copied onto another workspace
 * does not decrypt there, and the store's raw value shows no token.
 */
export class InstallationStore {
  constructor(
    private readonly keyv: Keyv<unknown>,
    /** Absent when SECRETS_KEY is not set: nothing can be stored (the config requires it for OAuth). */
    private readonly box: SecretBox | undefined,
  ) {}

  /** Records (or replaces, on a reinstall) the installation of a workspace. */
  async save(ref: InstallationRef, installation: Json): Promise<void> {
    const key = keyOf(ref);
    const sealed = this.requireBox().encrypt(JSON.stringify(installation), key);
    await this.keyv.set(key, recordSchema.parse({ installation: sealed, installedAt: Date.now() }));
  }

  /** The installation in clear, or undefined when the app is not installed there. */
  async get(ref: InstallationRef): Promise<Json | undefined> {
    const key = keyOf(ref);
    const record = await readRecord(this.keyv, key, recordSchema);
    if (!record) return undefined;
    return json.parse(JSON.parse(this.requireBox().decrypt(record.installation, key)));
  }

  /** Forgets a workspace's installation (uninstalled, tokens revoked); true if there was one. */
  delete(ref: InstallationRef): Promise<boolean> {
    return this.keyv.delete(keyOf(ref));
  }

  private requireBox(): SecretBox {
    if (!this.box)
      throw new SecretsError("secrets.no_key", "SECRETS_KEY is not set, so installations cannot be stored");
    return this.box;
  }
}

function keyOf(ref: InstallationRef): string {
  return `${ref.platform}:${ref.workspaceId}`;
}
