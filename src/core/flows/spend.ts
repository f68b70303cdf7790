import type { SpendServices } from "../commands/define.js";
import { noApiKey } from "../commands/errors.js";
import type { Actor, ConversationRef } from "../ports.js";
import { keyIdOf, OPEN_PERIOD } from "../spend/readings.js";
import { budgetViews, spendReport, spendRows } from "../spend/report.js";
import { isPersonal, tenantOf } from "../tenancy.js";
import type { Core } from "./core.js";

/** Job states for the export are read a slice at a time: a period can hold thousands of jobs. */
const STATUS_SLICE = 100;

/** The usage and budget commands' view of the spending records. */
export function spendServices(core: Core): SpendServices {
  const subjectOf = (viewer: Actor, conversation: ConversationRef) => ({
    userId: viewer.userId,
    roleIds: viewer.roleIds,
    channelId: conversation.channelId,
    isAdmin: viewer.isAdmin,
    platform: viewer.platform,
  });
  return {
    async report(viewer, conversation, account) {
      const tenant = tenantOf(viewer);
      const key = await core.tenancy.apiKey(tenant);
      if (!key) throw noApiKey(isPersonal(viewer));
      const period = await core.spending.probe(tenant, key, account);
      const [jobs, ofKey, rules, book] = await Promise.all([
        core.spend.ofTenant(tenant, period),
        core.spend.ofKey(keyIdOf(key.value), period),
        core.spend.budgets(tenant),
        core.spend.book(tenant, period),
      ]);
      const input = { period, jobs, key: ofKey, viewer: subjectOf(viewer, conversation), rules, book };
      const report = spendReport(input);
      if (!viewer.isAdmin) return { report, rows: [], period };
      const states = new Map<string, string>();
      for (let start = 0; start < jobs.length; start += STATUS_SLICE) {
        const slice = jobs.slice(start, start + STATUS_SLICE);
        const records = await Promise.all(slice.map((job) => core.jobs.get(job.jobId)));
        for (const record of records) if (record) states.set(record.id, record.state);
      }
      const rows = spendRows({ ...input, status: (jobId) => states.get(jobId) ?? "expired" });
      return { report, rows, period };
    },
    async budgets(viewer, conversation) {
      const tenant = tenantOf(viewer);
      const key = await core.tenancy.apiKey(tenant);
      const period = (key && (await core.spend.period(keyIdOf(key.value)))) ?? OPEN_PERIOD;
      const [rules, book] = await Promise.all([core.spend.budgets(tenant), core.spend.book(tenant, period)]);
      return budgetViews({ rules, book, viewer: subjectOf(viewer, conversation) });
    },
    changeBudgets: (actor, change) => core.spend.changeBudgets(tenantOf(actor), change),
  };
}
