import type { TenantRef } from "../common/types.js";
import type { Indexes } from "./indexes.js";

/**
 * Per tenant, the ids of what it made through the bot: service job ids, and the video, image,
 * avatar and media ids their results carry. Tenants that share the operator's key see the
 * account's lists through these (see src/core/tenant-view.ts). The newest KEEP per tenant stay.
 */
const KEEP = 10_000;

export class OwnedRecords {
  constructor(private readonly indexes: Indexes) {}

  async add(tenant: TenantRef, ids: readonly string[]): Promise<void> {
    const at = Date.now();
    for (const id of new Set(ids)) await this.indexes.add(keyOf(tenant), { id, at }, KEEP);
  }

  async list(tenant: TenantRef): Promise<ReadonlySet<string>> {
    return new Set((await this.indexes.list(keyOf(tenant))).map((entry) => entry.id));
  }
}

const keyOf = (tenant: TenantRef) => `owned:${tenant.platform}:${tenant.tenantId}`;
