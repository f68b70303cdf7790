import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
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
