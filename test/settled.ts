import type { TenantRef } from "../src/common/types.js";
import { Ownership } from "../src/core/jobs/ownership.js";
import type { Stores } from "../src/store/index.js";

/**
 * Whether every job of `tenants` is done with, as the store says: its outcome recorded and
 * delivered, and no instance owning it any more. From then on no process posts its result again
 * (a delivery reads the record under its claim and finds nothing left to do, core/jobs/delivery.ts),
 * so a test that counts a result's posts once this holds sees a second post if there was one,
 * however slow the machine, where a fixed wait would pass before a late one or fail on a slow run.
 * False while the tenants have no job at all: there is nothing yet to have settled.
 */
export async function jobsSettled(
  stores: Pick<Stores, "jobs" | "claims" | "indexes">,
  tenants: readonly TenantRef[],
): Promise<boolean> {
  for await (const page of stores.jobs.listUnfinished()) if (page.length > 0) return false;
  const jobs = (await Promise.all(tenants.map((tenant) => stores.jobs.listByTenant(tenant, 200)))).flat();
  if (jobs.length === 0) return false;
  const owners = await new Ownership(stores.claims, stores.indexes).ownersOf(jobs.map((job) => job.id));
  return owners.every((owner) => owner === undefined);
}

/**
 * How many `command` gestures the bots at `origins` have handled to their end, whatever the
 * outcome, summed over their /metrics (mediabot_commands_total). A start counts once its job is
 * started and a refusal before it is told, so once the sum reaches the gestures sent, none of them
 * can still make a creation call.
 */
export async function commandsHandled(origins: readonly string[], command: string): Promise<number> {
  const sample = new RegExp(
    `^mediabot_commands_total\\{command="${command.replaceAll(".", "\\.")}",outcome="[^"]*"\\} (\\d+)$`,
    "gm",
  );
  let handled = 0;
  for (const origin of origins) {
    const text = await (await fetch(`${origin}/metrics`)).text();
    for (const [, count] of text.matchAll(sample)) handled += Number(count);
  }
  return handled;
}
