import { afterEach, describe, expect, it, vi } from "vitest";
import { isCard } from "../../../src/core/base/cards.js";
import { registry } from "../../../src/core/base/metrics.js";
import { eventually } from "../fake-adapter.js";
import { actor, admin, CHANNEL, Harness, text } from "./harness.js";

/**
 * Spending through the core, over the emulator's real account: budgets checked before any
 * creation call, alerts told once however many jobs cross a threshold.
 */

const ALERTS = "alerts-1";
let h: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

const member = (n: number) => actor({ userId: `member-${n}` });
const alertsIn = (harness: Harness, title: string) =>
  harness.chat.posts.filter(
    (post) => post.target.channelId === ALERTS && isCard(post.message) && post.message.title === title,
  );

describe("budgets", () => {
  it("a person over their budget is refused before any creation call, told what is left and who can raise it", async () => {
    h = await Harness.start();
    await h.command("budget", { for: "<@member-1>", jobs: 2 }, { actor: admin() });
    expect(h.lastEphemeral().title).toBe("Budget saved");
    for (let i = 0; i < 2; i++)
      await h.startJob("image.generate", { prompt: `fox ${i}` }, { actor: member(1) });
    await h.command("image.generate", { prompt: "one fox too many" }, { actor: member(1) });
    const refusal = text(h.lastEphemeral());
    expect(refusal).toMatch(/over your budget: 2 of 2 jobs used this period, 0 left/);
    expect(refusal).toMatch(/resets on \d{4}-\d{2}-\d{2}/);
    expect(refusal).toMatch(
      /An admin .* can raise it with the budget command\. Nothing was started or charged\./,
    );
    expect(h.creations("/api/image/generate")).toHaveLength(2);
    // Someone else is not held back by member-1's budget.
    await h.startJob("image.generate", { prompt: "another fox" }, { actor: member(2) });
    expect(h.creations("/api/image/generate")).toHaveLength(3);
  });

  it("a credit budget for everyone holds the whole server to it, and members cannot change budgets", async () => {
    h = await Harness.start();
    await h.command("budget", { for: "everyone", credits: 3 }, { actor: admin() });
    await h.command("budget", { for: "everyone", credits: 1000 }, { actor: member(1) });
    expect(h.lastEphemeral().lines.join(" ")).toMatch(/Only admins/);
    // Images cost 1 credit each at the emulator: the fourth would go over.
    for (let i = 0; i < 3; i++)
      await h.startJob("image.generate", { prompt: `fox ${i}` }, { actor: member(i) });
    await h.command("image.generate", { prompt: "fox 4" }, { actor: member(4) });
    expect(text(h.lastEphemeral())).toMatch(
      /over this server's budget: 3 of 3 credits used this period, 0 left/,
    );
    expect(h.creations("/api/image/generate")).toHaveLength(3);
    await h.command("budget", {}, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain("Everyone together: 3 of 3 credits (0 left)");
  });

  it("a follow-up button is held to the clicker's budget like a command, before any creation call", async () => {
    h = await Harness.start();
    await h.command("budget", { for: "each", jobs: 1 }, { actor: admin() });
    const message = await h.startJob("image.generate", { prompt: "a fox" }, { actor: member(1) });
    await h.finished(message);
    await h.click(message, "regenerate", undefined, member(1));
    expect(h.lastEphemeral().title).toBe("Over budget");
    expect(text(h.lastEphemeral())).toMatch(
      /the budget each person has: 1 of 1 jobs used this period, 0 left/,
    );
    expect(h.creations("/api/image/generate")).toHaveLength(1);
    // Someone else's click starts the job on their own budget.
    await h.click(message, "regenerate", undefined, member(2));
    await eventually(() => h!.creations("/api/image/generate").length === 2);
  });

  it("an admin removes a budget, and the member can start again; a budget is told what is wrong with it", async () => {
    h = await Harness.start();
    await h.command("budget", { for: "<@member-1>", jobs: 1 }, { actor: admin() });
    await h.startJob("image.generate", { prompt: "fox" }, { actor: member(1) });
    await h.command("image.generate", { prompt: "fox again" }, { actor: member(1) });
    expect(h.lastEphemeral().title).toBe("Over budget");
    await h.command("budget", { for: "<@member-1>", remove: true }, { actor: admin() });
    expect(h.lastEphemeral().title).toBe("Budget removed");
    await h.startJob("image.generate", { prompt: "fox, at last" }, { actor: member(1) });
    expect(h.creations("/api/image/generate")).toHaveLength(2);
    await h.command("budget", { for: "everyone", kind: "cinematic" }, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain("kind goes with jobs: for example jobs 10 kind cinematic.");
    await h.command("budget", { for: "the designers", jobs: 3 }, { actor: admin() });
    expect(text(h.lastEphemeral())).toMatch(
      /for takes a person, role or channel mention .*not "the designers"/,
    );
  });

  it("a new period frees a person's budget from its first start, though the bot last saw the old one", async () => {
    // Only the clock: the emulator's reset date follows it, a moment before and after midnight.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-30T23:59:59.000Z"));
    h = await Harness.start();
    await h.command("budget", { for: "<@member-1>", jobs: 1 }, { actor: admin() });
    await h.startJob("image.generate", { prompt: "fox" }, { actor: member(1) });
    await h.command("image.generate", { prompt: "fox again" }, { actor: member(1) });
    expect(text(h.lastEphemeral())).toMatch(/over your budget: 1 of 1 jobs used this period/);
    vi.setSystemTime(new Date("2026-12-01T00:00:01.000Z"));
    await h.startJob("image.generate", { prompt: "fox in december" }, { actor: member(1) });
    expect(h.creations("/api/image/generate")).toHaveLength(2);
    await h.command("image.generate", { prompt: "fox again in december" }, { actor: member(1) });
    expect(text(h.lastEphemeral())).toMatch(
      /over your budget: 1 of 1 jobs used this period.*resets on 2027-01-01/,
    );
  });

  it("shows on /metrics: credits spent by kind and tenant, credits left, budget refusals", async () => {
    h = await Harness.start();
    const value = async (pattern: RegExp) => Number(pattern.exec(await registry.metrics())?.[1] ?? 0);
    const spent = /mediabot_credits_spent_total\{kind="image",tenant="discord:guild-1"\} (\d+)/;
    const refused = /mediabot_budget_refusals_total\{scope="user"\} (\d+)/;
    const [spentBefore, refusedBefore] = [await value(spent), await value(refused)];
    await h.command("budget", { for: "each", jobs: 1 }, { actor: admin() });
    await h.startJob("image.generate", { prompt: "fox" }, { actor: member(1) });
    await h.command("image.generate", { prompt: "fox again" }, { actor: member(1) });
    // The job's cost is counted as its bookkeeping lands, right after its start.
    await eventually(async () => (await value(spent)) === spentBefore + 1);
    expect(await value(refused)).toBe(refusedBefore + 1);
    expect(await registry.metrics()).toMatch(/mediabot_credits_remaining\{tenant="discord:guild-1"\} 999/);
  });
});

describe("alerts", () => {
  it("50 jobs crossing the 20 % threshold post one alert, and crossing 5 % one more", async () => {
    h = await Harness.start({ jobLimit: 50 });
    await h.command("setup", { alerts_channel: `<#${ALERTS}>` }, { actor: admin() });
    // 1000 credits, 780 used: 22 % left; each image costs 1.
    h.emu.account("test-key").creditsUsed = 780;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h!.command("image.generate", { prompt: `fox ${i}` }, { actor: member(i) }),
      ),
    );
    expect(h.creations("/api/image/generate", true)).toHaveLength(50);
    await eventually(() => alertsIn(h!, "Spending alert").length === 1);
    // Late checks of the last readings must not add a second one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const alerts = alertsIn(h, "Spending alert");
    expect(alerts).toHaveLength(1);
    expect(text(alerts[0]!.message as never)).toMatch(
      /Credits are running low: \d+ of 1000 left \(\d+ %\), under the 20 % alert/,
    );
    h.emu.account("test-key").creditsUsed = 955;
    await h.startJob("image.generate", { prompt: "fox" }, { actor: member(99) });
    await eventually(() => alertsIn(h!, "Spending alert").length === 2);
    expect(text(alertsIn(h, "Spending alert")[1]!.message as never)).toMatch(/under the 5 % alert/);
  });

  it("setup refuses an alert setting it cannot read, and saves nothing", async () => {
    h = await Harness.start();
    await h.command("setup", { alerts_channel: "everyone" }, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain("alerts_channel takes one channel (a mention), here, or none.");
    await h.command("setup", { alert_at: "20, 150" }, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain("alert_at takes up to 5 percentages between 0 and 100");
    await h.command("setup", { alerts_channel: `<#${ALERTS}>`, alert_at: "50%, 10%" }, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain(`Spending alerts: In ${ALERTS} at 50 %, 10 % left`);
    await h.command("setup", { alerts_channel: "none" }, { actor: admin() });
    expect(text(h.lastEphemeral())).toContain("Spending alerts: Off (set alerts_channel)");
  });

  it("creations refused for lack of credits are told once, not per refusal", async () => {
    h = await Harness.start();
    await h.command(
      "setup",
      { alerts_channel: "here" },
      { actor: admin(), conversation: { ...CHANNEL, channelId: ALERTS } },
    );
    h.emu.account("test-key").creditsUsed = 1000;
    for (let i = 0; i < 3; i++)
      await h.command("image.generate", { prompt: `fox ${i}` }, { actor: member(i) });
    await eventually(() => alertsIn(h!, "Out of credits").length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alertsIn(h, "Out of credits")).toHaveLength(1);
  });
});

describe("in the reader's language", () => {
  it("a German admin gets usage, the export and budgets in German; the export's columns stay English", async () => {
    h = await Harness.start();
    const german = actor({ userId: "admin-de", isAdmin: true, locale: "de" });
    await h.command("budget", { for: "everyone", credits: 1000 }, { actor: german });
    expect(h.lastEphemeral().title).toBe("Budget gespeichert");
    expect(text(h.lastEphemeral())).toContain("Alle zusammen: 0 von 1000 Credits (1000 übrig)");
    await h.startJob("image.generate", { prompt: "ein Fuchs" }, { actor: german });

    // The job's cost is known once the reading after its charge is recorded.
    const usage = await eventually(async () => {
      await h!.command("usage", {}, { actor: german });
      const card = h!.lastEphemeral();
      return text(card).includes("Nach Art") && card;
    }, 10_000);
    expect(usage.title).toBe("Nutzung des Mediendienstes");
    expect(text(usage)).toMatch(/Zurückgesetzt am: \d{2}\.\d{2}\.\d{4}/);
    expect(text(usage)).toContain("Nach Art: Bilder: 1 Credit, 1 Auftrag");
    expect(usage.media[0]?.alt).toMatch(/^Balkendiagramm der pro Tag ausgegebenen Credits nach Auftragsart/);

    await h.command("usage", { view: "export" }, { actor: german });
    const exported = h.lastEphemeral();
    expect(exported.title).toBe("Ausgaben-Export: 1 Auftrag in diesem Zeitraum");
    const csv = exported.media[0]!;
    if (!csv.file) throw new Error(`the export came as ${csv.kind} without a file`);
    expect(csv.name).toMatch(/^ausgaben-(\d{4}-\d{2}|bis-\d{4}-\d{2}-\d{2})\.csv$/);
    const body = Buffer.concat(await (await csv.file.open()).toArray()).toString();
    expect(body.split("\r\n")[0]).toBe(
      "time,person,person id,channel,channel id,kind,command,credits,job id,service job id,status",
    );

    // The same server's English admin, unchanged.
    await h.command("budget", {}, { actor: admin() });
    expect(h.lastEphemeral().title).toBe("Budgets");
    expect(text(h.lastEphemeral())).toContain("Everyone together:");
  });
});
