import type { Actor, ConversationRef } from "../base/ports.js";
import type { SpendServices } from "../commands/define.js";
import { noApiKey } from "../commands/errors.js";
import { originOf } from "../spend/origin.js";
import { keyIdOf, OPEN_PERIOD } from "../spend/readings.js";
import { budgetRefs, budgetViews, memberFields, rowRefs, spendReport, spendRows } from "../spend/report.js";
import { isPersonal, tenantOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";

/** The usage and budget commands' (and the Home's) view of the spending records. */
export function spendServices(core: Core): SpendServices {
  const subjectOf = (viewer: Actor, conversation: ConversationRef) => ({
    userId: viewer.userId,
    roleIds: viewer.roleIds,
    channelId: originOf(viewer, conversation).channelId,
    isAdmin: viewer.isAdmin,
    platform: viewer.platform,
  });
  /** The tenant's key and the account as views show it (read at most every 30 s per key, nothing written). */
  async function viewOf(viewer: Actor) {
    const tenant = tenantOf(viewer);
    const key = await core.tenancy.apiKey(tenant);
    if (!key) throw noApiKey(isPersonal(viewer));
    return { tenant, view: await core.spending.view(tenant, key) };
  }
  return {
    async report(viewer, conversation) {
      const { tenant, view } = await viewOf(viewer);
      const book = { tenant, period: view.period };
      const viewerOf = subjectOf(viewer, conversation);
      const rules = await core.spend.budgets(tenant);
      // A member's view needs their own sums and their budgets' standing, not everyone's sums.
      const [tallies, own, outside] = await Promise.all([
        core.spend.tallies(book, viewer.isAdmin ? undefined : memberFields(rules, viewerOf)),
        viewer.isAdmin ? {} : core.spend.personTallies(book, viewer.userId),
        viewer.isAdmin ? core.spend.outside(view.keyId, view.period) : 0,
      ]);
      const named = await core.names.of(viewer.platform, viewer.tenantId, budgetRefs(rules));
      const report = spendReport({
        period: view.period,
        viewer: viewerOf,
        rules,
        tallies,
        own,
        outside,
        named,
      });
      return { account: view.account, report, period: view.period };
    },
    async rows(viewer) {
      const { tenant, view } = await viewOf(viewer);
      const { period, keyId } = view;
      const [jobs, key] = await Promise.all([
        core.spend.ofTenant(tenant, period),
        core.spend.ofKey(keyId, period),
      ]);
      const states = new Map<string, string>();
      for (const record of await core.jobs.getMany(jobs.map((job) => job.jobId))) {
        states.set(record.id, record.state);
      }
      const named = await core.names.of(viewer.platform, viewer.tenantId, rowRefs(jobs));
      const rows = spendRows({ jobs, key, status: (jobId) => states.get(jobId) ?? "expired", named });
      return { rows, period };
    },
    async budgets(viewer, conversation) {
      const tenant = tenantOf(viewer);
      const key = await core.tenancy.apiKey(tenant);
      const period = (key && (await core.spend.period(keyIdOf(key.value)))) ?? OPEN_PERIOD;
      const [rules, tallies] = await Promise.all([
        core.spend.budgets(tenant),
        core.spend.tallies({ tenant, period }),
      ]);
      const named = await core.names.of(viewer.platform, viewer.tenantId, budgetRefs(rules));
      return budgetViews({ rules, tallies, viewer: subjectOf(viewer, conversation), named });
    },
    changeBudgets: (actor, change) => core.spend.changeBudgets(tenantOf(actor), change),
  };
}
