import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "../../src/core/render/spend-chart.js";
import { type Operation, PRICES } from "../fakes/media-api/accounts.js";
import type { Emulator, RecordedCall } from "../fakes/media-api/index.js";
import { solidPng } from "../fakes/media-api/png.js";
import { type Message, type SlackFile, type SlackUser, startFakeSlack } from "../fakes/slack/index.js";
import { exportRows } from "../spend-csv.js";
import { headerOf, jobIdOf, SlackWorld, shown } from "./harness.js";

/**
 * Team spending through Slack, as people use it: an admin's budget refusing a member's third job
 * before any creation call, one "Spending alert" per threshold in the channel setup named,
 * `/media usage` with its chart and `/media usage export` (both in the person's DM with the bot,
 * since Slack cannot attach files to an ephemeral message). What the bot shows is checked against
 * the emulator's own record of the creation calls and the prices of accounts.ts.
 */

/**
 * A bot and fake Slack per describe: spending is per account and period, so each story has its
 * own. The fake keeps what the bot uploads, so the chart and the CSV can be read back.
 */
function worldPerDescribe(): () => SlackWorld {
  let world: SlackWorld | undefined;
  beforeAll(async () => {
    world = await SlackWorld.start(await startFakeSlack({ keepUploads: true }));
  });
  afterAll(async () => {
    await world?.close();
    await world?.fake.close();
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

const isAlert = (m: Pick<Message, "blocks">) => headerOf(m)?.includes("Spending alert") === true;

describe("a budget of 2 jobs for a member", () => {
  const world = worldPerDescribe();

  it("refuses the member's third image privately, naming what is left and the reset date, with no third creation call", async () => {
    const { fake } = world();
    const member = fake.addUser("budgeted");
    const saved = await world().answer(`budget <@${member.id}|budgeted> --jobs 2`, fake.users.admin.id);
    expect(saved).toContain("Budget saved");
    expect(saved).toContain("0 of 2 jobs (2 left)");

    for (const prompt of ["first kite", "second kite"]) {
      const before = world().jobCount();
      await world().command(`image generate ${prompt}`, member.id);
      // Tracked: the job message names our job.
      await world().jobMessage(before);
    }
    expect(world().creations("/api/image/generate")).toHaveLength(2);

    const thirdKite = () => world().answer("image generate third kite", member.id);
    const refused = await thirdKite();
    expect(refused).toContain("This would go over your budget: 2 of 2 jobs used this period, 0 left.");
    expect(refused).toContain(`It resets on ${resetDate()}.`);
    expect(refused).toContain("Nothing was started or charged.");
    // Not the job-limit card: the refusal is about the budget (render/errors.ts titles "limit." codes so).
    expect.soft(refused).not.toContain("Too many jobs running");
    // No late call either, and no third job message: the same start again is the barrier, once it
    // is refused too, a late call of the first would have arrived.
    expect(await thirdKite()).toContain("This would go over your budget");
    expect(world().creations("/api/image/generate")).toHaveLength(2);
    expect(world().jobCount()).toBe(2);

    // The admin sees the budget used up: `/media budget` alone opens its form, sent empty it lists them.
    const admin = fake.users.admin.id;
    const form = await world().openForm("budget", admin);
    const answers = world().ephemeralTexts(admin).length;
    await world().submit(form, {});
    expect(await world().until(() => world().ephemeralTexts(admin)[answers])).toContain(
      "2 of 2 jobs (0 left)",
    );
  });
});

describe("spending alerts", () => {
  const world = worldPerDescribe();
  const alerts = (channel: string) => world().fake.messages(channel).filter(isAlert);

  async function images(count: number, user: SlackUser) {
    for (let i = 0; i < count; i++) await world().job(`image generate alert kite ${i}`, user.id);
  }

  it("posts one alert when the credits left fall under 20 %, however many jobs cross it, then one more under 5 %", async () => {
    const { fake, emu } = world();
    const { admin } = fake.users;
    const channel = fake.addChannel("spend-alerts");
    // An admin runs setup in the alerts channel: setup always opens its form (it can take the key).
    const views = fake.views.length;
    await fake.slashCommand(world().eventsUrl, {
      text: "setup --alerts_channel here",
      user: admin.id,
      channel,
    });
    const form = await world().until(() => fake.views[views]);
    await world().submit(form, { alerts_channel: "here" });
    const saved = await world().until(() =>
      fake.ephemerals(channel).find((m) => m.user === admin.id && shown(m).includes("Settings saved")),
    );
    expect(shown(saved)).toContain(`In ${channel} at 20 %, 5 % left`);

    const account = emu.account("test-key");
    account.creditsLimit = 1000;
    account.creditsUsed = 798; // 202 left: the second image makes it 200, 20 %
    const member = fake.addUser("spender");
    await images(4, member);
    expect(account.creditsUsed).toBe(802);
    const first = await world().until(() => alerts(channel)[0]);
    // A restart: its graceful stop waits for each job's alert check, so a late second alert is
    // posted by then; the bot comes back on the same store, where the alerts told are claimed.
    await world().restart();
    expect(alerts(channel)).toHaveLength(1);
    expect(shown(first)).toContain("Credits are running low: 200 of 1000 left (20 %), under the 20 % alert.");
    expect(shown(first)).toContain(`The period resets on ${resetDate()}.`);

    account.creditsUsed = 948; // 52 left: the second image makes it 50, 5 %
    await images(3, member);
    const second = await world().until(() => alerts(channel)[1]);
    await world().restart();
    expect(alerts(channel)).toHaveLength(2);
    expect(shown(second)).toContain("Credits are running low: 50 of 1000 left (5 %), under the 5 % alert.");
    // Nowhere else: the job channel holds no alert, and no one got one privately.
    expect(alerts(fake.channelId)).toEqual([]);
    expect(fake.ephemerals(channel).filter(isAlert)).toEqual([]);
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
    user: SlackUser;
    channelId: string;
    kind: string;
    command: string;
  }
  const made: Made[] = [];
  let ann: SlackUser;
  let bob: SlackUser;
  const OUTSIDE = 7;

  async function job(user: SlackUser, start: () => Promise<Message>, kind: string, command: string) {
    const { emu, fake } = world();
    const calls = creations(emu).length;
    const polled = polledJobIds(emu);
    const message = await start();
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
      channelId: fake.channelId,
      kind,
      command,
    });
  }

  /** An image edit: the form, with a photo the person attached. */
  async function edit(user: SlackUser): Promise<Message> {
    const view = await world().openForm("image edit make it snow", user.id);
    const photo = world().fake.addUserFile(solidPng([20, 90, 200]), {
      name: "street.png",
      mimetype: "image/png",
      user: user.id,
    });
    const before = world().jobCount();
    await world().submit(view, { image: [photo], prompt: "make it snow" });
    return world().finished((await world().jobMessage(before)).ts);
  }

  beforeAll(async () => {
    const { fake, emu } = world();
    ann = fake.addUser("ann");
    bob = fake.addUser("bob");
    await job(ann, () => world().job("image generate a lighthouse", ann.id), "image", "image.generate");
    // Someone spends on the same key in the service's web app.
    emu.account("test-key").creditsUsed += OUTSIDE;
    await job(
      bob,
      () => world().job("thumbnail generate a bold title --aspect_ratio 16:9", bob.id),
      "thumbnail",
      "thumbnail.generate",
    );
    await job(ann, () => world().job("image generate a harbour", ann.id), "image", "image.generate");
    await job(bob, () => edit(bob), "image", "image.edit");
  }, 60_000);

  const creditsOf = (rows: readonly Made[]) => rows.reduce((sum, m) => sum + m.credits, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const share = (rows: readonly Made[]) =>
    `${plural(creditsOf(rows), "credit")}, ${plural(rows.length, "job")}`;

  /**
   * Runs `/media <text>` as `user` and resolves with what reached their DM with the bot: the card
   * and its file, read back from Slack with the bot's token, once the channel told them so.
   */
  async function direct(text: string, user: SlackUser, fileName: string) {
    const { fake } = world();
    const notes = world().ephemeralTexts(user.id).length;
    const uploads = fake.uploads.length;
    await world().command(text, user.id);
    const note = await world().until(() => world().ephemeralTexts(user.id)[notes]);
    const upload = await world().until(() =>
      fake.uploads.slice(uploads).find((u) => u.filename === fileName),
    );
    const dm = upload.channel!;
    const card = await world().until(() => fake.messages(dm).find((m) => m.ts === upload.threadTs));
    const file = await world().until(() =>
      fake
        .messages(dm)
        .flatMap((m) => m.files ?? [])
        .find((f: SlackFile) => f.id === upload.fileId),
    );
    const response = await fetch(file.url_private, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    return { note, dm, card, file, bytes };
  }

  it("shows an admin everyone's spending, matching the emulator's calls, with outside spending and a PNG chart", async () => {
    const { fake, emu } = world();
    // The emulator's own record: four creations, every one a job the bot made.
    expect(creations(emu)).toEqual(made.map((m) => m.call));
    expect(creditsOf(made)).toBe(5);

    const { note, dm, card, file, bytes } = await direct("usage", fake.users.admin, "usage.png");
    expect(note).toContain("sent to you in a direct message");
    expect(dm).toMatch(/^D/);
    const text = shown(card);

    const account = emu.account("test-key");
    expect(text).toContain(`(${account.creditsUsed} of ${account.creditsLimit})`);
    expect(text).toContain(`Spent through the bot this period*\\n${share(made)}`);
    expect(text).toContain(`Outside the bot*\\n${plural(OUTSIDE, "credit")}`);
    for (const user of [ann, bob]) {
      expect(text).toContain(`<@${user.id}> ${share(made.filter((m) => m.user === user))}`);
    }
    expect(text).toContain(`Images: ${share(made.filter((m) => m.kind === "image"))}`);
    expect(text).toContain(`Thumbnails: ${share(made.filter((m) => m.kind === "thumbnail"))}`);

    expect(file.mimetype).toBe("image/png");
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // The first chunk is IHDR (13 bytes): the picture's size as the chart draws it.
    expect(bytes.readUInt32BE(8)).toBe(13);
    expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([CHART_WIDTH, CHART_HEIGHT]);
  });

  it("asked in the DM with the bot, answers there once: the card with its chart, and no private copy of it", async () => {
    const { fake } = world();
    const admin = fake.users.admin;
    const { dm } = await direct("usage", admin, "usage.png");
    const cards = () => fake.messages(dm).filter((m) => headerOf(m)?.includes("Media service usage"));
    const [messages, ephemerals, uploads] = [cards().length, fake.ephemerals(dm).length, fake.uploads.length];

    await fake.slashCommand(world().eventsUrl, { text: "usage", user: admin.id, channel: dm });
    const card = await world().until(() => cards()[messages]);
    await world().until(() =>
      fake.uploads.slice(uploads).find((u) => u.channel === dm && u.threadTs === card.ts),
    );
    // The person's next command is answered after this one (one lane per person): its answer is
    // the only private message the DM got.
    await fake.slashCommand(world().eventsUrl, { text: "help usage", user: admin.id, channel: dm });
    await world().until(() => fake.ephemerals(dm)[ephemerals]);
    expect(
      fake
        .ephemerals(dm)
        .slice(ephemerals)
        .map((m) => m.text),
    ).toEqual([expect.not.stringContaining("Media service usage")]);
    expect(cards()).toHaveLength(messages + 1);
    expect(fake.uploads.slice(uploads).map((u) => [u.channel, u.filename])).toEqual([[dm, "usage.png"]]);
  });

  it("gives an admin a CSV whose rows are the emulator's creation calls one to one, and refuses a member", async () => {
    const { fake, emu } = world();
    const { card, bytes } = await direct("usage export", fake.users.admin, exportName());
    expect(shown(card)).toContain("Spending export: 4 jobs this period");
    const csv = bytes.toString("utf8");
    const rows = exportRows(csv);

    // One row per creation call, and one creation call per row.
    expect(creations(emu)).toEqual(made.map((m) => m.call));
    expect(rows.map((r) => r.serviceJobId).sort()).toEqual(made.map((m) => m.serviceJobId).sort());
    expect(rows.map((r) => r.serviceJobId).sort()).toEqual(polledJobIds(emu).sort());
    for (const m of made) {
      const row = rows.find((r) => r.serviceJobId === m.serviceJobId);
      expect(row).toMatchObject({
        person: m.user.name,
        personId: m.user.id,
        channel: "media",
        channelId: m.channelId,
        kind: m.kind,
        command: m.command,
        credits: String(m.credits),
        jobId: m.jobId,
        status: "done",
      });
      expect(Date.parse(row!.time!)).toBeGreaterThanOrEqual(m.call.at - 1000);
    }

    const uploads = fake.uploads.length;
    const exportAsAnn = () => world().answer("usage export", ann.id);
    expect(await exportAsAnn()).toContain("Only admins can export");
    // The same ask again is the barrier: once it is refused too, a late upload of the first would be there.
    expect(await exportAsAnn()).toContain("Only admins can export");
    expect(fake.uploads.slice(uploads)).toEqual([]);
  });
});
