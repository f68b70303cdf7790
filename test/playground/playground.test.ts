/**
 * The playground in a real headless browser (the one test/browser.ts finds, driven through
 * playwright-core, which never downloads one): a person's gestures on the page go through the real discord.js client and Bolt
 * app over the fakes, and what they answer shows up as pictures. PLAYGROUND_SCREENSHOT=1 also
 * writes docs/playground.png, docs/spending.png, docs/settings-discord.png, docs/home-slack.png and
 * docs/workflow-steps-slack.png.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "../../src/core/render/spend-chart.js";
import { browser as aBrowser, h264 } from "../browser.js";
import { renderPicture } from "../fakes/media-api/pictures.js";
import { LAPTOP, openPlayground, type PlaygroundInBrowser, send as sendLine, shows } from "./in-browser.js";
import type { PlaygroundWorld } from "./world.js";

/** The photo a person picks for an edit: a fox, as the emulator draws one, without its words. */
const fox = renderPicture({ kind: "generate", prompt: "a red fox", aspectRatio: "1:1" }, [], { bare: true });
const SCREENSHOT = fileURLToPath(new URL("../../docs/playground.png", import.meta.url));
const SPENDING_SCREENSHOT = fileURLToPath(new URL("../../docs/spending.png", import.meta.url));
const SETTINGS_SCREENSHOT = fileURLToPath(new URL("../../docs/settings-discord.png", import.meta.url));
const HOME_SCREENSHOT = fileURLToPath(new URL("../../docs/home-slack.png", import.meta.url));
const STEPS_SCREENSHOT = fileURLToPath(new URL("../../docs/workflow-steps-slack.png", import.meta.url));

aBrowser.describe("the playground in a browser", () => {
  let playground: PlaygroundInBrowser;
  let world: PlaygroundWorld;
  let page: Page;

  beforeAll(async () => {
    playground = await openPlayground();
    ({ world, page } = playground);
  }, 30_000);

  afterAll(() => playground?.close());

  const discord = () => page.locator("#discord");
  const slack = () => page.locator("#slack");

  /** The picture has arrived from the fake that holds it and the browser decoded it: its size. */
  async function loaded(image: Locator): Promise<[number, number]> {
    await image.waitFor();
    return image.evaluate(async (element) => {
      const img = element as unknown as {
        decode(): Promise<void>;
        naturalWidth: number;
        naturalHeight: number;
      };
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
  }

  const text = (locator: Locator) => shows(locator);

  const hidden = (locator: Locator) => locator.waitFor({ state: "hidden", timeout: 10_000 });

  /** The person a pane acts as, by the name its picker shows. */
  const actAs = (pane: "discord" | "slack", name: string) =>
    page.locator(`#${pane} [data-role="user"]`).selectOption({ label: `as ${name}` });

  const send = (pane: "discord" | "slack", line: string) => sendLine(page, pane, line);

  describe("the playground page", () => {
    it("shows both channels and completes Discord commands and options from the registered commands", async () => {
      await text(page.locator("#discord .bar")).toContain("general");
      const line = page.locator("#discord-line");
      await line.pressSequentially("/ima");
      await text(discord().locator(".suggestions")).toContain("/image generate");
      await line.press("Tab");
      await line.pressSequentially("prompt:a red fox asp");
      await line.press("Tab");
      await line.pressSequentially("16");
      await expect.poll(() => discord().locator(".suggestions li .l").allInnerTexts()).toEqual(["16:9"]);
      await line.press("Tab");
      expect(await line.inputValue()).toBe("/image generate prompt:a red fox aspect_ratio:16:9 ");
    });

    it("takes a Discord image from the command to the finished picture", async () => {
      await page.locator("#discord-line").press("Enter");
      const card = discord().locator(".message", { hasText: "Image: a red fox" }).first();
      await text(card.locator(".used")).toContain("used /image generate");
      // The emulator's picture at the asked shape.
      expect(await loaded(card.locator(".embed img.media"))).toEqual([768, 432]);
      // Green: the job ended well.
      expect(await card.locator(".embed").getAttribute("style")).toContain("#57f287");
      await text(discord().locator(".message", { hasText: "is ready." })).toContain(
        "Image: a red fox is ready.",
      );
      const [generate] = world.emulator.callsTo("POST", "/api/image/generate");
      expect(generate?.json).toMatchObject({ prompt: "a red fox", aspectRatio: "16:9" });
      world.discord.assertNoValidationErrors();
    });

    it("runs a user-installed command in a server without the bot, answered through its interaction", async () => {
      const where = page.locator('#discord [data-role="place"]');
      await where.selectOption({ label: "# chat · Friends (no bot: your own install)" });
      await send("discord", "/image generate prompt:a paper kite");
      const card = discord().locator(".message", { hasText: "Image: a paper kite" }).first();
      expect(await loaded(card.locator(".embed img.media"))).toEqual([768, 768]);
      // Where the bot is no member, nothing comes by its own token: no ready notice either.
      await expect.poll(() => discord().locator(".message", { hasText: "is ready." }).count()).toBe(0);
      const friends = world.discordPlaces[1]!.id;
      expect(world.discord.calls.filter((c) => c.path.startsWith(`/channels/${friends}/`))).toEqual([]);
      await where.selectOption({ index: 0 });
      await text(discord().locator(".message", { hasText: "Image: a red fox" })).toContain("a red fox");
      world.discord.assertNoValidationErrors();
    });

    it("acts as the person picked in a pane, who alone sees their private answers", async () => {
      await discord().locator('[data-role="user"]').selectOption({ label: "as Other" });
      await page.locator("#discord-line").fill("/usage");
      await page.locator("#discord-line").press("Enter");
      const usage = discord().locator(".message", { hasText: "Media service usage" });
      await text(usage.locator(".ephemeral")).toContain("Only you can see this");
      expect(await usage.locator(".used").innerText()).toContain("@Other used /usage");

      await discord().locator('[data-role="user"]').selectOption({ label: "as Requester" });
      await hidden(usage);
    });

    it("designs a photo avatar in Discord's modal and keeps both variants", async () => {
      await page.locator("#discord-line").fill("/photo_avatar design name:Ava portrait:true");
      await page.locator("#discord-line").press("Enter");
      const modal = discord().locator("form.modal");
      await text(modal.locator("h2")).toBe("Photo avatar design");
      await modal.locator("#dm-gender").fill("female");
      await modal.locator("#dm-age").fill("30s");
      await modal.locator("#dm-outfit").fill("navy suit");
      await modal.locator("#dm-background").fill("office");
      await modal.getByRole("button", { name: "Submit" }).click();
      await hidden(discord().locator(".overlay"));

      const card = discord().locator(".message", { hasText: "Photo avatar: Ava" }).first();
      await card.getByRole("button", { name: "Keep both" }).click();
      await text(card).toContain("Avatar 1 id");
      expect(await card.innerText()).toContain("Avatar 2 id");
      // The choice is gone; what is left leads on: a video with each new avatar.
      expect(await card.getByRole("button", { name: /^Keep/ }).count()).toBe(0);
      expect(await card.getByRole("button", { name: /^Make a video with avatar [12]$/ }).count()).toBe(2);
      expect(world.emulator.callsTo("POST", /\/api\/avatar\/design\/confirm-both$/)).toHaveLength(1);

      // The bot suggests the new avatars where a command takes one, over a real autocomplete interaction.
      const line = page.locator("#discord-line");
      await line.fill("/video avatar script:Hello there avatar:");
      await line.pressSequentially("Ava");
      await text(discord().locator(".suggestions")).toContain("Ava - 2");
      world.discord.assertNoValidationErrors();
      await line.fill("");
    });

    it("edits an image on Slack, completing the command and picking a file in the form", async () => {
      const line = page.locator("#slack-line");
      await line.pressSequentially("/media image ed");
      await text(slack().locator(".suggestions")).toContain("/media image edit");
      await line.press("Tab");
      await line.pressSequentially("put a party hat on the fox --asp");
      await line.press("Tab");
      await line.pressSequentially("1");
      await text(slack().locator(".suggestions")).toContain("1:1");
      await line.press("Tab");
      expect(await line.inputValue()).toBe(
        "/media image edit put a party hat on the fox --aspect_ratio 1:1 ",
      );
      await line.press("Enter");
      const modal = slack().locator("form.modal");
      await modal.waitFor();
      expect(await modal.locator("#sv-prompt").inputValue()).toBe("put a party hat on the fox");
      await modal.locator("#sv-image").setInputFiles({
        name: "fox.png",
        mimeType: "image/png",
        buffer: fox,
      });
      await modal.getByRole("button", { name: "Start" }).click();
      await hidden(slack().locator(".overlay"));

      const card = slack().locator(".message", { hasText: "✅" }).first();
      await text(card.locator(".header")).toContain("✅ Image");
      expect(await loaded(card.locator(".thread img.media"))).toEqual([768, 768]);
      const [edit] = world.emulator.callsTo("POST", "/api/image/edit");
      const { prompt, aspectRatio, referenceImageMediaId } = edit!.json as Record<string, string>;
      expect([prompt, aspectRatio]).toEqual(["put a party hat on the fox", "1:1"]);
      // The service received the very bytes picked in the browser.
      expect(world.emulator.media(referenceImageMediaId ?? "")?.sha256).toBe(
        createHash("sha256").update(fox).digest("hex"),
      );
    });
  });

  describe("team spending in the playground", () => {
    const generations = () => world.emulator.callsTo("POST", "/api/image/generate");

    it("shows an admin's Discord /usage with its chart and a CSV export, then refuses a start over the budget", async () => {
      const before = generations().length;
      await actAs("discord", "Other");
      await send("discord", "/image generate prompt:a green frog");
      await send("discord", "/image generate prompt:a grey heron");
      for (const prompt of ["a green frog", "a grey heron"])
        await text(discord().locator(".message", { hasText: `Image: ${prompt} is ready.` })).toContain(
          "ready",
        );
      expect(
        generations()
          .slice(before)
          .map((call) => (call.json as { prompt: string }).prompt)
          .sort(),
      ).toEqual(["a green frog", "a grey heron"]);

      // The admin finds the new commands where Discord's client offers them.
      await actAs("discord", "Admin");
      const line = page.locator("#discord-line");
      await line.pressSequentially("/bud");
      await text(discord().locator(".suggestions")).toContain("/budget");
      await line.fill("/usage view:");
      await expect.poll(() => discord().locator(".suggestions li .l").allInnerTexts()).toContain("export");
      await line.fill("");

      await send("discord", "/budget for:each jobs:2 kind:image");
      await text(discord().locator(".message", { hasText: "Budget saved" })).toContain("2 of 2 image jobs");

      await send("discord", "/usage");
      const usage = discord().locator(".message", { hasText: "Spent through the bot this period" });
      await text(usage).toContain("Top people");
      const figures = await usage.innerText();
      expect(figures).toContain("@Admin used /usage");
      expect(figures).toMatch(/@Other\s+2 credits, 2 jobs/);
      expect(figures).toContain("Each person (highest shown): 2 of 2 image jobs (0 left)");
      expect(figures).toContain("Only you can see this");
      // The chart, shown large enough to read.
      const chart = usage.locator(".embed img.media");
      expect(await loaded(chart)).toEqual([CHART_WIDTH, CHART_HEIGHT]);
      expect((await chart.boundingBox())?.width).toBeGreaterThanOrEqual(400);

      await send("discord", "/usage view:export");
      const exported = discord().locator(".message", { hasText: "Spending export" });
      const chip = exported.locator("a.file");
      await text(chip).toMatch(/^📄\s*spending-[\d-]+\.csv\s+[\d.]+ (bytes|KB)$/);
      expect(await chip.getAttribute("download")).toMatch(/^spending-[\d-]+\.csv$/);
      const csv = await chip.evaluate(async (a) =>
        (await fetch((a as unknown as { href: string }).href)).text(),
      );
      const [header, ...rows] = csv.trim().split(/\r?\n/);
      expect(header).toBe(
        "time,person,person id,channel,channel id,kind,command,credits,job id,service job id,status",
      );
      expect(rows.filter((row) => row.includes(world.discord.users.other.id))).toHaveLength(2);

      // Over the budget: refused before the creation call, said privately to the one who asked.
      await actAs("discord", "Other");
      await send("discord", "/image generate prompt:a third frog");
      const refusal = discord().locator(".message", { hasText: "This would go over" });
      await text(refusal).toContain("Nothing was started or charged.");
      const refused = await refusal.innerText();
      expect(refused).toContain("2 of 2 image jobs used this period, 0 left");
      expect(refused).toContain("Only you can see this");
      expect(generations()).toHaveLength(before + 2);
      world.discord.assertNoValidationErrors();
    });

    it("answers Slack's /media usage in the channel privately and puts its chart in the person's DM", async () => {
      const line = page.locator("#slack-line");
      await line.pressSequentially("/media usage ");
      await expect.poll(() => slack().locator(".suggestions li .l").allInnerTexts()).toContain("export");
      await line.fill("/media bud");
      await text(slack().locator(".suggestions")).toContain("/media budget");

      await actAs("slack", "Requester Person");
      const before = generations().length;
      await send("slack", "/media image generate a blue whale");
      await text(slack().locator(".message .header", { hasText: "a blue whale" })).toContain("✅");
      expect(generations()).toHaveLength(before + 1);

      await actAs("slack", "Admin Person");
      await send("slack", "/media usage");
      const channel = slack().locator('[data-role="messages"]');
      const usage = channel.locator(".message", { hasText: "Spent through the bot this period" });
      await text(usage).toContain("Only visible to you");
      const figures = await usage.innerText();
      expect(figures).toContain("Top people");
      expect(figures).toContain("@Requester Person");
      expect(figures).toContain("usage.png: sent to you in a direct message from the bot.");
      expect(await usage.locator("img").count()).toBe(0);

      // The DM tab counts what arrived; there the card shows with its chart.
      const tab = slack().locator('[data-tab="direct"]');
      await text(tab.locator(".badge")).toBe("1");
      await tab.click();
      const dm = slack().locator('[data-role="direct"]');
      const card = dm.locator(".message", { hasText: "Media service usage" }).first();
      await text(card).toContain("Spent through the bot this period");
      expect(await dm.locator(".intro").innerText()).toContain("between @Admin Person and media-bot");
      expect(await loaded(card.locator("figure img.media"))).toEqual([CHART_WIDTH, CHART_HEIGHT]);
      await hidden(tab.locator(".badge"));

      // The bot opened the admin's DM and uploaded the chart there, never into the channel.
      const { slack: fake } = world;
      expect(
        fake.calls.some((c) => c.method === "conversations.open" && c.args.users === fake.users.admin.id),
      ).toBe(true);
      const charts = fake.uploads.filter((u) => u.filename === "usage.png");
      expect(charts.map((u) => u.channel)).toEqual([expect.stringMatching(/^D/)]);
      // Someone else's DM view is their own.
      await actAs("slack", "Requester Person");
      await text(dm.locator(".intro")).toContain("Nothing here yet");
      await actAs("slack", "Admin Person");
      await text(card).toContain("Spent through the bot this period");

      if (process.env.PLAYGROUND_SCREENSHOT === "1") {
        // Tall enough for the whole Discord /usage answer, chart included; Slack's DM beside it.
        await page.setViewportSize({ ...LAPTOP, height: 1000 });
        await actAs("discord", "Admin");
        const answer = discord().locator(".message", { hasText: "Spent through the bot this period" });
        await loaded(answer.locator("img.media"));
        await answer.evaluate((element) => element.scrollIntoView({ block: "end" }));
        await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
        await page.screenshot({ path: SPENDING_SCREENSHOT });
        await page.setViewportSize(LAPTOP);
      }
    });
  });

  describe("settings and the Home tab in the playground", () => {
    it("shows Slack's Home tab with the person's jobs and defaults, and changes a default there", async () => {
      await actAs("slack", "Requester Person");
      await page.locator('#slack [data-tab="home"]').click();
      const home = slack().locator('[data-role="home"]');
      await text(home).toContain("Your jobs");
      expect(await home.innerText()).toContain("Image: a blue whale");
      await home.locator('select[data-act="slack-select"]').first().selectOption({ label: "9:16" });
      await text(home).toContain("Your default aspect ratio set to 9:16.");
      const person = {
        platform: "slack" as const,
        tenantId: world.slack.teamId,
        userId: world.slack.users.requester.id,
      };
      expect((await world.stores.preferences.get(person)).defaults).toMatchObject({ aspect_ratio: "9:16" });
    });

    it("changes a default in Discord's /settings panel, which shows it at once", async () => {
      await actAs("discord", "Requester");
      await send("discord", "/settings");
      const panel = discord().locator(".message", { hasText: "Your defaults: shape and style" }).last();
      await text(panel.locator(".ephemeral")).toContain("Only you can see this");
      const aspect = panel.locator('select[data-act="discord-select"]').first();
      await aspect.selectOption({ label: "Aspect ratio: 16:9" });
      await text(panel).toContain("Your default aspect ratio set to 16:9.");
      await expect
        .poll(() => panel.locator('select[data-act="discord-select"]').first().inputValue())
        .toBe("16:9");
      const person = {
        platform: "discord" as const,
        tenantId: world.discord.guild.id,
        userId: world.discord.users.requester.id,
      };
      expect((await world.stores.preferences.get(person)).defaults).toMatchObject({ aspect_ratio: "16:9" });
      world.discord.assertNoValidationErrors();

      if (process.env.PLAYGROUND_SCREENSHOT === "1") {
        await page.setViewportSize({ ...LAPTOP, height: 1000 });
        await panel.evaluate((element) => element.scrollIntoView({ block: "end" }));
        await discord().screenshot({ path: SETTINGS_SCREENSHOT });
        await slack()
          .locator('[data-role="home"]')
          .evaluate((element) => {
            element.scrollTop = 0;
          });
        await slack().screenshot({ path: HOME_SCREENSHOT });
        await page.setViewportSize(LAPTOP);
      }
      await page.locator('#slack [data-tab="messages"]').click();
    });
  });

  describe("workflow steps in the playground", () => {
    it("runs Slack's Generate an image step as a workflow would, and shows its outputs", async () => {
      await actAs("slack", "Requester Person");
      await page.locator('#slack [data-tab="workflows"]').click();
      const form = slack().locator('form[data-step="generate_image"]');
      await form.locator('input[name="prompt"]').fill("a lighthouse at dusk");
      await form.locator('select[name="aspect_ratio"]').selectOption("16:9");
      await form.getByRole("button", { name: "Run step" }).click();

      const run = slack().locator(".run", { hasText: "Generate an image" }).first();
      await text(run.locator(".run-title")).toContain("✅ completed");
      const outputs = await run.innerText();
      for (const key of ["job_id", "media_id", "url", "file"]) expect(outputs).toContain(key);
      expect(await loaded(run.locator("img.media"))).toEqual([768, 432]);
      const [execution] = world.slack.executions;
      expect(execution).toMatchObject({
        callbackId: "generate_image",
        state: "completed",
        inputs: { prompt: "a lighthouse at dusk", aspect_ratio: "16:9" },
      });

      // A step that cannot start says why, in the workflow's activity.
      const edit = slack().locator('form[data-step="edit_image"]');
      await edit.locator('input[name="prompt"]').fill("add a boat");
      await edit.getByRole("button", { name: "Run step" }).click();
      const failed = slack().locator(".run", { hasText: "Edit an image" }).first();
      await text(failed.locator(".reason")).toContain("a file in its Image input, or a link in Image URL");
      if (process.env.PLAYGROUND_SCREENSHOT === "1") {
        // The step that failed above the one that completed, with its outputs and picture.
        await page.setViewportSize({ ...LAPTOP, height: 1000 });
        await slack()
          .locator('[data-role="workflows"]')
          .evaluate((element) => {
            element.scrollTop = 0;
          });
        await slack().screenshot({ path: STEPS_SCREENSHOT });
        await page.setViewportSize(LAPTOP);
      }

      // The same step given the first one's URL output edits that image.
      await edit.locator('input[name="image_url"]').fill(String(execution?.outputs?.url));
      await edit.getByRole("button", { name: "Run step" }).click();
      const edited = slack().locator(".run", { hasText: "Edit an image" }).first();
      await text(edited.locator(".run-title")).toContain("✅ completed");
      // At the person's default shape, 9:16, set in the Home above.
      expect(await loaded(edited.locator("img.media"))).toEqual([432, 768]);
      await page.locator('#slack [data-tab="messages"]').click();
    });
  });

  describe("the page on a laptop", () => {
    it("fits 1280 px: each pane's bar holds its tabs and its person picker", async () => {
      await page.setViewportSize(LAPTOP);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(LAPTOP.width);
      for (const pane of [discord(), slack()]) {
        const bar = pane.locator(".bar");
        const { scrollWidth, clientWidth } = await bar.evaluate((e) => ({
          scrollWidth: e.scrollWidth,
          clientWidth: e.clientWidth,
        }));
        expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
        const [paneBox, picker] = [
          await pane.boundingBox(),
          await pane.locator('[data-role="user"]').boundingBox(),
        ];
        expect(picker!.x + picker!.width).toBeLessThanOrEqual(paneBox!.x + paneBox!.width);
        expect(picker!.width).toBeGreaterThan(100);
      }
      const tabs = await slack()
        .locator("[data-tab]")
        .evaluateAll((all) =>
          all.map(
            (tab) =>
              (tab as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect()
                .right,
          ),
        );
      const end = await slack().boundingBox();
      for (const right of tabs) expect(right).toBeLessThanOrEqual(end!.x + end!.width);
    });

    it("turns @name in either box into that person's mention", async () => {
      await actAs("discord", "Admin");
      await send("discord", "/budget for:@Requester jobs:7 kind:image");
      // Typed as it is, "@Requester" would be refused ("for takes a person ... mention"): the budget
      // saved for the person (shown by name or id) is the mention that reached the bot.
      const saved = discord().locator(".message", { hasText: "Budget saved" }).last();
      const requester = world.discord.users.requester.id;
      await text(saved).toMatch(new RegExp(`(@Requester|${requester})\\s+\\d+ of 7 image jobs`));
      world.discord.assertNoValidationErrors();

      await actAs("slack", "Admin Person");
      // The box offers the members as the client does once @ is typed.
      const line = page.locator("#slack-line");
      await line.fill("/media budget @Req");
      await expect
        .poll(() => slack().locator(".suggestions li .l").allInnerTexts())
        .toEqual(["@Requester Person"]);
      await line.press("Tab");
      expect(await line.inputValue()).toBe("/media budget @Requester Person ");
      await line.pressSequentially("--jobs 6 --kind image");
      await line.press("Enter");
      const slackSaved = slack().locator(".message", { hasText: "Budget saved" }).last();
      // The budget names the person as Slack's users.info does: by their display name.
      const shownAs = world.slack.users.requester.profile.display_name;
      await text(slackSaved).toMatch(new RegExp(`Person @${shownAs}\\s+\\d+ of 6 image jobs`));
    });

    it("plays a video result: H.264 at its aspect ratio, time moving past 0 s", async (context) => {
      await actAs("slack", "Requester Person");
      await send("slack", "/media video cinematic waves at dusk --aspect_ratio 9:16");
      const card = slack().locator(".message", { hasText: "Cinematic video: waves at dusk" }).first();
      const video = card.locator("video.media");
      await video.waitFor({ timeout: 15_000 });
      type Video = {
        muted: boolean;
        currentTime: number;
        videoWidth: number;
        videoHeight: number;
        play(): Promise<void>;
        canPlayType(type: string): string;
      };
      const playable = await video.evaluate((v) =>
        (v as unknown as Video).canPlayType('video/mp4; codecs="avc1.4D401E"'),
      );
      if (playable === "") h264.lackedBy(context);
      const shape = await video.evaluate(async (element) => {
        const v = element as unknown as Video;
        // Muted, as a page may start a video without a click.
        v.muted = true;
        await v.play();
        return [v.videoWidth, v.videoHeight];
      });
      expect(shape[0]! / shape[1]!).toBeCloseTo(9 / 16, 2);
      await expect
        .poll(() => video.evaluate((v) => (v as unknown as Video).currentTime), { timeout: 10_000 })
        .toBeGreaterThan(0);

      if (process.env.PLAYGROUND_SCREENSHOT === "1") {
        // Discord's first image, 16:9, beside Slack's video, 9:16, playing.
        await actAs("discord", "Requester");
        await discord()
          .locator(".message", { hasText: "Image: a red fox" })
          .first()
          .evaluate((element) => element.scrollIntoView({ block: "start" }));
        await card.evaluate((element) => element.scrollIntoView({ block: "end" }));
        await page.screenshot({ path: SCREENSHOT });
      }
    });

    it("keeps a cancelled form cancelled across a reload, in both panes", async () => {
      await actAs("discord", "Requester");
      await send("discord", "/photo_avatar design name:Bo portrait:true");
      const discordModal = discord().locator("form.modal");
      await discordModal.waitFor();
      await discordModal.getByRole("button", { name: "Cancel" }).click();
      await hidden(discord().locator(".overlay"));

      await actAs("slack", "Requester Person");
      await send("slack", "/media image edit a hat for the fox");
      const slackModal = slack().locator("form.modal");
      await slackModal.waitFor();
      await slackModal.getByRole("button", { name: "Cancel" }).click();
      await hidden(slack().locator(".overlay"));
      // The fakes still hold both open, as Discord and Slack would: only the page knows they were cancelled.
      expect(world.slack.views.some((v) => v.open && v.user === world.slack.users.requester.id)).toBe(true);

      await page.reload();
      // Once each pane shows its messages again, the page has decided about its forms too.
      await discord().locator(".message").first().waitFor();
      await slack().locator('[data-role="messages"] .message').first().waitFor();
      expect(await discord().locator(".overlay").isHidden()).toBe(true);
      expect(await slack().locator(".overlay").isHidden()).toBe(true);
      // And the pickers kept who acts.
      expect(await discord().locator('[data-role="user"] option:checked').innerText()).toBe("as Requester");
      expect(await slack().locator('[data-role="user"] option:checked').innerText()).toBe(
        "as Requester Person",
      );
    });
  });
});
