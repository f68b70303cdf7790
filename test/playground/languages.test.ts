/**
 * The playground's language switch, in a real headless browser: every member's Discord and Slack
 * set to one language, and the bot answering each in it. PLAYGROUND_SCREENSHOT=1 also writes
 * docs/playground-de.png and docs/playground-ja.png.
 */
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { browser as aBrowser } from "../browser.js";
import { openPlayground, type PlaygroundInBrowser, send as sendLine, shows } from "./in-browser.js";
import type { PlaygroundWorld } from "./world.js";

const screenshot = (tag: string) =>
  fileURLToPath(new URL(`../../docs/playground-${tag}.png`, import.meta.url));

aBrowser.describe("the playground's language switch", () => {
  let playground: PlaygroundInBrowser;
  let world: PlaygroundWorld;
  let page: Page;

  beforeAll(async () => {
    playground = await openPlayground();
    ({ world, page } = playground);
  }, 30_000);

  afterAll(() => playground?.close());

  const send = (pane: "discord" | "slack", line: string) => sendLine(page, pane, line);

  const language = () => page.locator('header [data-role="language"]');

  /** A Discord and a Slack job in the language picked, each finished (Discord's with its download link). */
  async function bothPanes(prompt: string, kind: string, download: string) {
    await send("discord", `/image generate prompt:${prompt} aspect_ratio:16:9`);
    await send("slack", `/media image generate ${prompt} --aspect_ratio 1:1`);
    const discordCard = page.locator("#discord .message", { hasText: `${kind}: ${prompt}` }).first();
    await shows(discordCard.locator(".embed")).toContain(download);
    const slackCard = page.locator("#slack .message", { hasText: `${kind}: ${prompt}` }).first();
    await shows(slackCard.locator(".header")).toContain(`✅ ${kind}: ${prompt}`);
    return { discordCard, slackCard };
  }

  it("answers every member in the language their clients are switched to, and keeps it across a reload", async () => {
    await language().selectOption({ label: "Deutsch" });
    const german = await bothPanes("ein Fuchs im Schnee", "Bild", "Bild herunterladen");
    await expect.poll(() => german.discordCard.innerText()).not.toContain("Image:");

    await page.reload();
    expect(await language().inputValue()).toBe("de");
    await bothPanes("eine Eule bei Nacht", "Bild", "Bild herunterladen");
    if (process.env.PLAYGROUND_SCREENSHOT === "1") await page.screenshot({ path: screenshot("de") });

    await language().selectOption({ label: "日本語" });
    await bothPanes("雪の中のキツネ", "画像", "画像をダウンロード");
    world.discord.assertNoValidationErrors();
    if (process.env.PLAYGROUND_SCREENSHOT === "1") await page.screenshot({ path: screenshot("ja") });
  }, 90_000);
});
