import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { launchBrowser } from "../browser.js";
import { startServer } from "./server.js";
import { type PlaygroundWorld, startWorld } from "./world.js";

/** A laptop's screen: the page must fit it, and the docs' pictures are taken at it. */
export const LAPTOP = { width: 1280, height: 800 };

export interface PlaygroundInBrowser {
  world: PlaygroundWorld;
  page: Page;
  close(): Promise<void>;
}

/** The playground's world and page server, and its page open in a fresh browser profile at LAPTOP. */
export async function openPlayground(): Promise<PlaygroundInBrowser> {
  const world = await startWorld({ scale: 0.01 });
  const server = await startServer(world);
  const profile = mkdtempSync(join(tmpdir(), "playground-chromium-"));
  const browser = await launchBrowser(profile, LAPTOP);
  const page = await browser.newPage();
  await page.goto(server.url);
  return {
    world,
    page,
    async close() {
      await browser.close();
      await server.close();
      await world.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What a part of the page shows, once it shows it (the page follows the fakes every 300 ms). */
export function shows(locator: Locator, timeout = 15_000) {
  return expect.poll(
    () =>
      locator
        .first()
        .innerText()
        .catch(() => ""),
    { timeout },
  );
}

/** Types a line in a pane's command box and sends it; the box empties once the fake took it. */
export async function send(page: Page, pane: "discord" | "slack", line: string): Promise<void> {
  const box = page.locator(`#${pane}-line`);
  await box.fill(line);
  await box.press("Enter");
  await expect.poll(() => box.inputValue()).toBe("");
}
