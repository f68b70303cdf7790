import type Keyv from "keyv";
import { z } from "zod";
import { type TenantRef, tenantKey } from "../common/types.js";
import { type Claims, withClaim } from "./claims.js";
import { type Preset, presetSchema } from "./preferences.js";
import { readRecord } from "./records.js";
import { type SecretBox, SecretsError } from "./secrets.js";

/** What `setup` configures for a Discord guild or a Slack workspace. */
export interface TenantSettings {
  /** Discord roles allowed to use the bot; empty means everyone. */
  allowedRoleIds: string[];
  /** Channels the bot answers in; empty means every channel. */
  allowedChannelIds: string[];
  /** People who act as admins besides the platform's own (Slack has no roles to grant it with). */
  adminUserIds: string[];
  /** Option defaults by option name, e.g. `{ aspect_ratio: "16:9" }`. */
  defaults: Record<string, string | number | boolean>;
  /** The channel spending alerts go to, or null for none. */
  alertChannelId: string | null;
  /** Fractions of credits (and of each per-type quota) left at which an alert is posted, highest first. */
  alertAt: number[];
  /** Presets an admin published: everyone in the tenant sees and uses them. */
  presets: Preset[];
  /** Whether people may have results delivered to them only (a shared account may want every spend seen). */
  privateResults: "allowed" | "forbidden";
  /** Jobs one person may have running at once; null: the bot's default. */
  runningLimit: number | null;
  /** Jobs one person may have waiting past that; null: the bot's default. */
  queueLimit: number | null;
  /** Jobs the whole tenant may have running at once; null: no limit of its own. */
  tenantRunningLimit: number | null;
  /** Whether the tenant has its own API key; the key itself only comes from `getApiKey`. */
  hasApiKey: boolean;
  /** Epoch milliseconds of the last change, or null for a tenant never set up. */
  updatedAt: number | null;
}

export interface TenantPatch {
  /** A new API key, or null to remove it (the bot falls back to MEDIA_API_KEY, where it may). */
  apiKey?: string | null;
  allowedRoleIds?: string[];
  allowedChannelIds?: string[];
  adminUserIds?: string[];
  defaults?: TenantSettings["defaults"];
  alertChannelId?: string | null;
  alertAt?: number[];
  /** The new list, or a change of the current one (made under the record's claim; it may throw to refuse). */
  presets?: Preset[] | ((current: Preset[]) => Preset[]);
  privateResults?: TenantSettings["privateResults"];
  runningLimit?: number | null;
  queueLimit?: number | null;
  tenantRunningLimit?: number | null;
}

/** Alerts at 20 % and 5 % of credits or quota left, unless an admin picks others. */
export const DEFAULT_ALERT_AT = [0.2, 0.05];

const ids = z.array(z.string().min(1));
const limit = z.number().int().nonnegative().max(1000);
const defaults = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
const recordSchema = z.object({
  /** The `v1:...` ciphertext of secrets.ts, never the key. */
  apiKey: z.string().nullable(),
  allowedRoleIds: ids,
  allowedChannelIds: ids,
  // Absent in records written before the list existed.
  adminUserIds: ids.default([]),
  defaults,
  // Absent in records written before spending alerts existed.
  alertChannelId: z.string().min(1).nullable().default(null),
  alertAt: z.array(z.number().gt(0).lt(1)).max(5).default(DEFAULT_ALERT_AT),
  // Absent in records written before presets and private results existed.
  presets: z.array(presetSchema).default([]),
  privateResults: z.enum(["allowed", "forbidden"]).default("allowed"),
  // Absent in records written before the queue existed.
  runningLimit: limit.nullable().default(null),
  queueLimit: limit.nullable().default(null),
  tenantRunningLimit: limit.nullable().default(null),
  updatedAt: z.number().int().nonnegative(),
});
type TenantRecord = z.infer<typeof recordSchema>;

/**
 * Tenant settings in keyv namespace `tenants`, one record per tenant. The API key is encrypted
 * with the tenant as context, so a record copied onto another tenant does not yield its key. A
 * corrupt record throws `store.corrupt` instead of reading as "no restrictions".
 */
export class TenantStore {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly claims: Claims,
    /** Absent when SECRETS_KEY is not set: settings work, API keys cannot be stored. */
    private readonly box: SecretBox | undefined,
  ) {}

  async get(tenant: TenantRef): Promise<TenantSettings> {
    return view(await readRecord(this.keyv, tenantKey(tenant), recordSchema));
  }

  /** Applies the fields present in `patch`, under a claim so two admins' edits do not clobber each other. */
  async update(tenant: TenantRef, patch: TenantPatch): Promise<TenantSettings> {
    const key = tenantKey(tenant);
    const apiKey =
      typeof patch.apiKey === "string" ? this.requireBox().encrypt(patch.apiKey, key) : patch.apiKey;
    return withClaim(this.claims, `lock:tenants:${key}`, async (lease) => {
      const current = await readRecord(this.keyv, key, recordSchema);
      const next = recordSchema.parse({
        apiKey: apiKey === undefined ? (current?.apiKey ?? null) : apiKey,
        allowedRoleIds: patch.allowedRoleIds ?? current?.allowedRoleIds ?? [],
        allowedChannelIds: patch.allowedChannelIds ?? current?.allowedChannelIds ?? [],
        adminUserIds: patch.adminUserIds ?? current?.adminUserIds ?? [],
        defaults: patch.defaults ?? current?.defaults ?? {},
        alertChannelId:
          patch.alertChannelId !== undefined ? patch.alertChannelId : (current?.alertChannelId ?? null),
        alertAt: patch.alertAt ?? current?.alertAt ?? DEFAULT_ALERT_AT,
        presets:
          typeof patch.presets === "function"
            ? patch.presets(current?.presets ?? [])
            : (patch.presets ?? current?.presets ?? []),
        privateResults: patch.privateResults ?? current?.privateResults ?? "allowed",
        runningLimit: kept(patch.runningLimit, current?.runningLimit),
        queueLimit: kept(patch.queueLimit, current?.queueLimit),
        tenantRunningLimit: kept(patch.tenantRunningLimit, current?.tenantRunningLimit),
        updatedAt: Date.now(),
      });
      await lease.confirm();
      await this.keyv.set(key, next);
      return view(next);
    });
  }

  /**
   * The tenant's own API key in clear, or undefined when it has none. Throws `SecretsError` when
   * it cannot be decrypted (SECRETS_KEY changed or unset), which an admin fixes by running setup.
   */
  async getApiKey(tenant: TenantRef): Promise<string | undefined> {
    const key = tenantKey(tenant);
    const stored = (await readRecord(this.keyv, key, recordSchema))?.apiKey;
    return stored ? this.requireBox().decrypt(stored, key) : undefined;
  }

  private requireBox(): SecretBox {
    if (!this.box)
      throw new SecretsError("secrets.no_key", "SECRETS_KEY is not set, so tenant API keys are unavailable");
    return this.box;
  }
}

/** A patch's value when it names one (null clears it), else the current one. */
const kept = (patched: number | null | undefined, current: number | null | undefined) =>
  patched !== undefined ? patched : (current ?? null);

function view(record: TenantRecord | undefined): TenantSettings {
  return {
    allowedRoleIds: record?.allowedRoleIds ?? [],
    allowedChannelIds: record?.allowedChannelIds ?? [],
    adminUserIds: record?.adminUserIds ?? [],
    defaults: record?.defaults ?? {},
    alertChannelId: record?.alertChannelId ?? null,
    alertAt: record?.alertAt ?? DEFAULT_ALERT_AT,
    presets: record?.presets ?? [],
    privateResults: record?.privateResults ?? "allowed",
    runningLimit: record?.runningLimit ?? null,
    queueLimit: record?.queueLimit ?? null,
    tenantRunningLimit: record?.tenantRunningLimit ?? null,
    hasApiKey: Boolean(record?.apiKey),
    updatedAt: record?.updatedAt ?? null,
  };
}
