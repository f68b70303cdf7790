import type { APIMessage, APIUser } from "discord-api-types/v10";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "../../src/core/render/spend-chart.js";
import type { InjectedInteraction } from "../fakes/discord/index.js";
import { type Operation, PRICES } from "../fakes/media-api/accounts.js";
import type { Emulator, RecordedCall } from "../fakes/media-api/index.js";
import { exportRows } from "../spend-csv.js";
import { DiscordWorld, ended, isEphemeral, shown } from "./harness.js";

/**
 * Team spending through Discord, as people use it: an admin's budget refusing a member's third
 * job before any creation call, one "Spending alert" per threshold in the channel setup named,
 * /usage with its chart, and the admins' CSV export. What the bot shows is checked against the
 * emulator's own record of the creation calls and the prices of accounts.ts.
 */

/** A bot and fake Discord per describe: spending is per account and period, so each story has its own. */
function worldPerDescribe(): () => DiscordWorld {
  let world: DiscordWorld | undefined;
  beforeAll(async () => {
    world = await DiscordWorld.start();
  });
  afterEach(() => {
    world?.fake.assertNoValidationErrors();
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => world!;
}

/** The paid calls these tests make, by path, as accounts.ts prices them. */
const OPERATIONS: Record<string, Operation> = {
  "/api/image/generate": "image.generate",
  "/api/image/edit": "image.edit",
  "/api/thumbnail/generate": "thumbnail.generate",
};

/** The creation calls the emulator recorded and carried out (answered 200), oldest first. */
function creations(emu: Emulator): RecordedCall[] {
  return emu.calls.filter((c) => c.method === "POST" && c.path in OPERATIONS && c.status === 200);
}

/** The job ids the emulator issued, as the bot polls them: GET /api/image/<id>, /api/thumbnail/<id>. */
function polledJobIds(emu: Emulator): string[] {
  const ids = emu.calls
    .filter((c) => c.method === "GET")
    .map((c) => /^\/api\/(?:image|thumbnail)\/([^/]+)$/.exec(c.path)?.[1])
    .filter((id): id is string => id !== undefined);
  return [...new Set(ids)];
}

/** The export of this period: the emulator's periods are UTC months. */
function exportName(): string {
  return `spending-${new Date().toISOString().slice(0, 7)}.csv`;
}

/** The period's last day as the emulator gives it (usage_reset_date): the first day of next UTC month. */
function resetDate(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/** Our job id, as the job message's footer shows it. */
const jobIdOf = (message: APIMessage) => /^Job (\S+)$/.exec(message.embeds[0]?.footer?.text ?? "")?.[1];

const mention = (user: APIUser) => `<@${user.id}>`;

describe("a budget of 2 jobs for a member", () => {
  const world = worldPerDescribe();

  it("refuses the member's third image privately, naming what is left and the reset date, with no third creation call", async () => {
    const member = world().fake.addUser("budgeted");
    const saved = await world().run({
      name: "budget",
      options: { for: mention(member), jobs: 2 },
      user: world().fake.users.admin,
    });
    expect(isEphemeral(saved)).toBe(true);
    expect(shown(saved)).toContain("Budget saved");
    expect(shown(saved)).toContain("0 of 2 jobs (2 left)");

    for (const prompt of ["first kite", "second kite"]) {
      const command = await world().command({
        name: "image",
        subcommand: "generate",
        options: { prompt },
        user: member,
      });
      // Tracked: the job message names our job.
      await world().jobMessage(command, (m) => jobIdOf(m) !== undefined);
    }
    expect(world().creations("/api/image/generate")).toHaveLength(2);

    const thirdKite = () =>
      world().run({
        name: "image",
        subcommand: "generate",
        options: { prompt: "third kite" },
        user: member,
      });
    const refused = await thirdKite();
    expect(isEphemeral(refused)).toBe(true);
    const text = shown(refused);
    expect(text).toContain("This would go over your budget: 2 of 2 jobs used this period, 0 left.");
    expect(text).toContain(`It resets on ${resetDate()}.`);
    expect(text).toContain("Nothing was started or charged.");
    // Not the job-limit card: the refusal is about the budget (render/errors.ts titles "limit." codes so).
    expect.soft(refused.embeds[0]?.title).not.toBe("Too many jobs running");
    // No late call either: the same start again is the barrier, once it is refused too, a late
    // call of the first would have arrived.
    expect(shown(await thirdKite())).toContain("This would go over your budget");
    expect(world().creations("/api/image/generate")).toHaveLength(2);
    expect(
      world()
        .fake.messages()
        .filter((m) => !isEphemeral(m) && jobIdOf(m)),
    ).toHaveLength(2);

    // The admin sees the budget used up.
    const listed = await world().run({ name: "budget", user: world().fake.users.admin });
    expect(shown(listed)).toContain("2 of 2 jobs (0 left)");
  });
});

describe("spending alerts", () => {
  const world = worldPerDescribe();
  const alerts = (channelId: string) =>
    world()
      .fake.messages(channelId)
      .filter((m) => m.embeds[0]?.title === "Spending alert");

  /**
   * A restart: the graceful stop waits for every start's bookkeeping, the alert check of each
   * job's reading included (core/spend/spending.ts), so a late second alert is posted by then. The
   * bot comes back on the same store, where the alerts told are claimed.
   */
  const everyAlertChecked = () => world().restart();

  async function images(count: number, user: APIUser) {
    for (let i = 0; i < count; i++) {
      const command = await world().command({
        name: "image",
        subcommand: "generate",
        options: { prompt: `alert kite ${i}` },
        user,
      });
      await world().jobMessage(command);
    }
  }

  it("posts one alert when the credits left fall under 20 %, however many jobs cross it, then one more under 5 %", async () => {
    const { fake, emu } = world();
    const channel = await fake.addChannel("spend-alerts");
    const saved = await world().run({
      name: "setup",
      options: { alerts_channel: `<#${channel.id}>` },
      user: fake.users.admin,
    });
    expect(shown(saved)).toContain("Settings saved");
    expect(shown(saved)).toContain(`In ${channel.id} at 20 %, 5 % left`);

    const account = emu.account("test-key");
    account.creditsLimit = 1000;
    account.creditsUsed = 798; // 202 left: the second image makes it 200, 20 %
    const member = fake.addUser("spender");
    await images(4, member);
    expect(account.creditsUsed).toBe(802);
    const first = await world().until(() => alerts(channel.id)[0]);
    await everyAlertChecked();
    expect(alerts(channel.id)).toHaveLength(1);
    expect(shown(first)).toContain("Credits are running low: 200 of 1000 left (20 %), under the 20 % alert.");
    expect(shown(first)).toContain(`The period resets on ${resetDate()}.`);
    expect(isEphemeral(first)).toBe(false);

    account.creditsUsed = 948; // 52 left: the second image makes it 50, 5 %
    await images(3, member);
    const second = await world().until(() => alerts(channel.id)[1]);
    await everyAlertChecked();
    expect(alerts(channel.id)).toHaveLength(2);
    expect(shown(second)).toContain("Credits are running low: 50 of 1000 left (5 %), under the 5 % alert.");
    // Nowhere else: the job channel holds no alert.
    expect(alerts(fake.channel.id)).toEqual([]);
  });
});

describe("usage and its export", () => {
  const world = worldPerDescribe();

  /** What the emulator and the test know of each paid job the bot started. */
  interface Made {
    call: RecordedCall;
    credits: number;
    serviceJobId: string;
    jobId: string;
    user: APIUser;
    channelId: string;
    kind: string;
    command: string;
  }
  const made: Made[] = [];
  let ann: APIUser;
  let bob: APIUser;
  const OUTSIDE = 7;

  async function job(
    user: APIUser,
    input: Omit<Parameters<DiscordWorld["command"]>[0], "user">,
    kind: string,
  ): Promise<void> {
    const { emu } = world();
    const calls = creations(emu).length;
    const polled = polledJobIds(emu);
    const command: InjectedInteraction = await world().command({ ...input, user });
    const message = await world().jobMessage(command, ended);
    const call = creations(emu).slice(calls);
    const issued = polledJobIds(emu).filter((id) => !polled.includes(id));
    expect(call).toHaveLength(1);
    expect(issued).toHaveLength(1);
    made.push({
      call: call[0]!,
      credits: PRICES[OPERATIONS[call[0]!.path]!].credits,
      serviceJobId: issued[0]!,
      jobId: jobIdOf(message)!,
      user,
      channelId: world().fake.channel.id,
      kind,
      command: `${input.name}.${input.subcommand}`,
    });
  }

  beforeAll(async () => {
    const { fake, emu } = world();
    ann = fake.addUser("ann");
    bob = fake.addUser("bob");
    await job(ann, { name: "image", subcommand: "generate", options: { prompt: "a lighthouse" } }, "image");
    // Someone spends on the same key in the service's web app.
    emu.account("test-key").creditsUsed += OUTSIDE;
    await job(
      bob,
      { name: "thumbnail", subcommand: "generate", options: { prompt: "bold title" } },
      "thumbnail",
    );
    await job(ann, { name: "image", subcommand: "generate", options: { prompt: "a harbour" } }, "image");
    await job(
      bob,
      {
        name: "image",
        subcommand: "edit",
        options: { prompt: "make it snow" },
        attachments: [{ ...world().png("street.png"), option: "image" }],
      },
      "image",
    );
  }, 60_000);

  const creditsOf = (rows: readonly Made[]) => rows.reduce((sum, m) => sum + m.credits, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const share = (rows: readonly Made[]) =>
    `${plural(creditsOf(rows), "credit")}, ${plural(rows.length, "job")}`;

  it("shows an admin everyone's spending, matching the emulator's calls, with outside spending and a PNG chart", async () => {
    const { fake, emu } = world();
    // The emulator's own record: four creations, every one a job the bot made.
    expect(creations(emu)).toEqual(made.map((m) => m.call));
    expect(creditsOf(made)).toBe(5);

    const answer = await world().run({ name: "usage", user: fake.users.admin });
    expect(isEphemeral(answer)).toBe(true);
    const text = shown(answer);
    const field = (name: string) => answer.embeds[0]?.fields?.find((f) => f.name === name)?.value;

    const account = emu.account("test-key");
    expect(field("Credits used")).toContain(`(${account.creditsUsed} of ${account.creditsLimit})`);
    expect(field("Spent through the bot this period")).toBe(share(made));
    expect(field("Outside the bot")).toBe(plural(OUTSIDE, "credit"));
    for (const user of [ann, bob]) {
      const theirs = made.filter((m) => m.user === user);
      expect(text).toContain(`${mention(user)} ${share(theirs)}`);
    }
    const byKind = field("By kind")?.split("\n");
    expect(byKind).toEqual(
      expect.arrayContaining([
        `Images: ${share(made.filter((m) => m.kind === "image"))}`,
        `Thumbnails: ${share(made.filter((m) => m.kind === "thumbnail"))}`,
      ]),
    );
    expect(byKind).toHaveLength(2);

    const chart = answer.attachments.find((a) => a.filename === "usage.png");
    expect(chart?.content_type).toBe("image/png");
    expect(answer.embeds[0]?.image?.url).toBe(chart?.url);
    const png = fake.file(chart!);
    expect(png).toBeDefined();
    expect([...png!.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // The first chunk is IHDR (13 bytes): the picture's size as the chart draws it.
    expect(png!.readUInt32BE(8)).toBe(13);
    expect(png!.subarray(12, 16).toString("latin1")).toBe("IHDR");
    expect([png!.readUInt32BE(16), png!.readUInt32BE(20)]).toEqual([CHART_WIDTH, CHART_HEIGHT]);
  });

  it("gives an admin a CSV whose rows are the emulator's creation calls one to one, and refuses a member", async () => {
    const { fake, emu } = world();
    const answer = await world().run({ name: "usage", options: { view: "export" }, user: fake.users.admin });
    expect(isEphemeral(answer)).toBe(true);
    const file = answer.attachments.find((a) => a.filename === exportName());
    expect(file, JSON.stringify(answer.attachments.map((a) => a.filename))).toBeDefined();
    const csv = fake.file(file!)!.toString("utf8");
    const rows = exportRows(csv);

    // One row per creation call, and one creation call per row.
    expect(creations(emu)).toEqual(made.map((m) => m.call));
    expect(rows.map((r) => r.serviceJobId).sort()).toEqual(made.map((m) => m.serviceJobId).sort());
    expect(rows.map((r) => r.serviceJobId).sort()).toEqual(polledJobIds(emu).sort());
    for (const m of made) {
      const row = rows.find((r) => r.serviceJobId === m.serviceJobId);
      expect(row).toMatchObject({
        person: m.user.global_name,
        personId: m.user.id,
        channel: world().fake.channel.name,
        channelId: m.channelId,
        kind: m.kind,
        command: m.command,
        credits: String(m.credits),
        jobId: m.jobId,
        status: "done",
      });
      expect(Date.parse(row!.time!)).toBeGreaterThanOrEqual(m.call.at - 1000);
    }

    const member = await world().run({ name: "usage", options: { view: "export" }, user: ann });
    expect(isEphemeral(member)).toBe(true);
    expect(shown(member)).toContain("Only admins can export");
    expect(member.attachments).toEqual([]);
  });
});
