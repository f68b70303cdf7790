/**
 * The Chromium-family browser the browser tests drive through playwright-core, found where
 * developers have one; playwright-core itself never downloads a browser.
 */
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { LocalTool } from "./local-tools.js";

/** Variables naming a browser outright; the first set wins over everything else. */
export const BROWSER_VARIABLES = ["CHROMIUM_PATH", "PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH"] as const;

/** Names of a Chromium-family browser on the PATH, in the order they are tried. */
const ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** macOS application bundles, system-wide then the person's own. */
const MAC_BUNDLES = [
  "Google Chrome.app/Contents/MacOS/Google Chrome",
  "Chromium.app/Contents/MacOS/Chromium",
];

/** Where `npx playwright install chromium` puts its builds, by platform. */
const PLAYWRIGHT_BUILDS = [
  "chrome-linux64/chrome",
  "chrome-linux/chrome",
  "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium",
  "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
  "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
  "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
];

export type BrowserLookup =
  | { found: true; path: string; via: string }
  /** `problem` is set when a variable names a browser that is not there: a mistake to report, not a skip. */
  | { found: false; problem?: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function onPath(env: NodeJS.ProcessEnv): { path: string; via: string } | undefined {
  const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of ON_PATH) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (executable(path)) return { path, via: `${name} on the PATH` };
    }
  }
  return undefined;
}

function playwrightCache(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (env.PLAYWRIGHT_BROWSERS_PATH) return env.PLAYWRIGHT_BROWSERS_PATH;
  if (platform === "darwin") return join(homedir(), "Library", "Caches", "ms-playwright");
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "ms-playwright");
}

/** A Chromium in Playwright's cache (`npx playwright-core install chromium`), the newest build first. */
function fromPlaywright(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  const cache = playwrightCache(env, platform);
  let builds: string[];
  try {
    builds = readdirSync(cache).filter((name) => /^chromium-\d+$/.test(name));
  } catch {
    return undefined;
  }
  builds.sort((a, b) => Number(b.split("-")[1]) - Number(a.split("-")[1]));
  for (const build of builds) {
    for (const inside of PLAYWRIGHT_BUILDS) {
      const path = join(cache, build, inside);
      if (executable(path)) return path;
    }
  }
  return undefined;
}

/**
 * Finds a browser: CHROMIUM_PATH (or PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH), then chromium,
 * chromium-browser, google-chrome or google-chrome-stable on the PATH, then the macOS application
 * bundles of Chrome and Chromium, then a Chromium that Playwright installed in its cache.
 */
export function findBrowser(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  /** Where macOS keeps applications: the system's, then the person's own. */
  applications: readonly string[] = ["/Applications", join(homedir(), "Applications")],
): BrowserLookup {
  for (const variable of BROWSER_VARIABLES) {
    const path = env[variable];
    if (!path) continue;
    if (executable(path)) return { found: true, path, via: variable };
    return { found: false, problem: `${variable}=${path} is not an executable file` };
  }
  const found = onPath(env);
  if (found) return { found: true, ...found };
  if (platform === "darwin") {
    for (const root of applications) {
      for (const bundle of MAC_BUNDLES) {
        const path = join(root, bundle);
        if (executable(path)) return { found: true, path, via: "an application bundle" };
      }
    }
  }
  const installed = fromPlaywright(env, platform);
  if (installed) return { found: true, path: installed, via: "Playwright's cache" };
  return { found: false };
}

const lookup = findBrowser();

/** The browser tests' tool: skipped without one, failing when REQUIRE_BROWSER=1 (CI sets it). */
export const browser = new LocalTool({
  name: "a browser",
  hint:
    "set CHROMIUM_PATH, or install Chromium or Chrome: apt-get install chromium (Debian), " +
    "snap install chromium (Ubuntu), brew install --cask chromium (macOS), " +
    "or npx playwright-core install chromium",
  requiredBy: "REQUIRE_BROWSER",
  probe: () => lookup.found || (lookup.problem ?? false),
});

/**
 * What the emulator's videos need, as Discord's and Slack's clients do: Chrome and the
 * distributions' Chromium play H.264; Playwright's own Chromium build does not.
 */
export const h264 = new LocalTool({
  name: "a browser that plays H.264",
  hint: "Playwright's own Chromium has no H.264: set CHROMIUM_PATH to Chrome or a distribution's Chromium",
  requiredBy: "REQUIRE_BROWSER",
  probe: () => true, // known only once a page asks the browser
});

/** Headless, offline, in a throwaway profile; the lookup's browser, which the caller checked is there. */
export function launchBrowser(
  profile: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  if (!lookup.found) throw new Error("no browser: check `browser.available` first");
  return chromium.launchPersistentContext(profile, {
    executablePath: lookup.path,
    headless: true,
    viewport,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
