import { z } from "zod";
import { readerLocale } from "../i18n/locale.js";
import { command, msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { fileFromBuffer, spendChartPng } from "../render/spend-chart.js";
import { exportFileName, spendCsv } from "../render/spend-csv.js";
import { spendingCard, spendingExportCard } from "../render/spending.js";
import { isAdmin } from "../tenancy/tenancy.js";
import { defineCommand } from "./define.js";
import { AccessError } from "./errors.js";

/**
 * The account's figures and this period's spending through the bot: everyone's for admins, one's
 * own for members; `export` hands admins every job of the period as CSV.
 */
export const usage = defineCommand({
  name: "usage",
  help: "Credits left, this period's spending by person, kind and day, and your budgets",
  options: z.object({
    view: z
      .enum(["summary", "export"])
      .describe("summary (default), or export: every job of the period as CSV (admins)")
      .optional(),
  }),
  main: "view",
  ephemeral: true,
  async run({ options, actor, conversation, settings, services }) {
    const admin = isAdmin(actor, settings);
    const viewer = { ...actor, isAdmin: admin };
    const t = translatorFor(readerLocale(actor));
    if (options.view === "export") {
      if (!admin) {
        throw new AccessError(
          "access.admin_only",
          msg("refusal.access.admin_export", { usage: command("usage"), export: "export" }),
        );
      }
      const { rows, period } = await services.spend.rows(viewer);
      const csv = fileFromBuffer(exportFileName(period, t), "text/csv", Buffer.from(spendCsv(rows)));
      return { reply: spendingExportCard(rows.length, csv, t, actor.platform) };
    }
    const { account, report } = await services.spend.report(viewer, conversation);
    const png = await spendChartPng(report, t);
    return {
      reply: spendingCard(account, report, png && fileFromBuffer("usage.png", "image/png", png), t),
    };
  },
});
