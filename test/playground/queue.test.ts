/**
 * The queue in the playground, in a real headless browser: past the running limit a command's
 * message says where it waits, with a Cancel button that works from the page.
 * PLAYGROUND_SCREENSHOT=1 also writes docs/queue-discord.png.
 */
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { browser as aBrowser } from "../browser.js";
import { openPlayground, type PlaygroundInBrowser, send as sendLine, shows } from "./in-browser.js";
import type { PlaygroundWorld } from "./world.js";

const SCREENSHOT = fileURLToPath(new URL("../../docs/queue-discord.png", import.meta.url));

aBrowser.describe("the queue in the playground", () => {
  let playground: PlaygroundInBrowser;
  let world: PlaygroundWorld;
  let page: Page;

  beforeAll(async () => {
    playground = await openPlayground();
    ({ world, page } = playground);
  }, 30_000);

  afterAll(() => playground?.close());

  const discord = () => page.locator("#discord");
  const send = (line: string) => sendLine(page, "discord", line);

  it("shows a job waiting its turn with its place, and a Cancel that takes it back before any call", async () => {
    await world.stores.tenants.update(
      { platform: "discord", tenantId: world.discord.guild.id },
      { runningLimit: 1 },
    );
    world.emulator.planNextJob("image", { durationMs: 5_000 });
    await send("/image generate prompt:a lighthouse at dusk");
    await shows(discord().locator(".message", { hasText: "Image: a lighthouse at dusk" })).toContain("Job ");
    await send("/image generate prompt:a harbour in the fog");
    await send("/image generate prompt:a ferry at dawn");
    const waiting = discord().locator(".message", { hasText: "Image: a harbour in the fog" });
    await shows(waiting).toContain("Queued: 0 ahead of you");
    const last = discord().locator(".message", { hasText: "Image: a ferry at dawn" });
    await shows(last).toContain("Queued: 1 ahead of you");

    await last.getByRole("button", { name: "Cancel" }).click();
    await shows(last).toContain("Cancelled before it started: nothing was charged.");
    expect(await last.getByRole("button", { name: "Cancel" }).count()).toBe(0);
    const made = world.emulator
      .callsTo("POST", "/api/image/generate")
      .map((c) => (c.json as { prompt: string }).prompt);
    expect(made).not.toContain("a ferry at dawn");
    world.discord.assertNoValidationErrors();

    if (process.env.PLAYGROUND_SCREENSHOT === "1") {
      await last.evaluate((element) => element.scrollIntoView({ block: "end" }));
      await discord().screenshot({ path: SCREENSHOT });
    }
  }, 60_000);
});
