import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findBrowser } from "./browser.js";

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A file at `path` (under a fresh directory), executable unless said otherwise. */
function program(path: string, executable = true): string {
  root ??= mkdtempSync(join(tmpdir(), "browser-lookup-"));
  const full = join(root, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, "#!/bin/sh\n");
  chmodSync(full, executable ? 0o755 : 0o644);
  return full;
}

/** An environment with nothing in it but what a test gives: an empty PATH and Playwright cache. */
function env(vars: Record<string, string> = {}): NodeJS.ProcessEnv {
  root ??= mkdtempSync(join(tmpdir(), "browser-lookup-"));
  return { PATH: join(root, "empty"), PLAYWRIGHT_BROWSERS_PATH: join(root, "no-cache"), ...vars };
}

describe("finding a browser", () => {
  it("takes CHROMIUM_PATH first, then PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH, over anything on the PATH", () => {
    const named = program("opt/chrome/chrome");
    const playwright = program("opt/pw/chrome");
    const onPath = program("bin/chromium");
    const PATH = join(onPath, "..");
    expect(
      findBrowser(
        env({ PATH, CHROMIUM_PATH: named, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: playwright }),
        "linux",
      ),
    ).toEqual({ found: true, path: named, via: "CHROMIUM_PATH" });
    expect(findBrowser(env({ PATH, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: playwright }), "linux")).toEqual({
      found: true,
      path: playwright,
      via: "PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH",
    });
  });

  it("says so when the variable names no executable, rather than looking elsewhere", () => {
    program("bin/chromium");
    const missing = join(root!, "nowhere", "chrome");
    expect(findBrowser(env({ PATH: join(root!, "bin"), CHROMIUM_PATH: missing }), "linux")).toEqual({
      found: false,
      problem: `CHROMIUM_PATH=${missing} is not an executable file`,
    });
  });

  it("looks for chromium, chromium-browser, google-chrome, google-chrome-stable on the PATH, in that order", () => {
    const chrome = program("a/google-chrome");
    const browser = program("b/chromium-browser");
    program("c/chromium", false); // not executable: not a browser
    const PATH = ["a", "b", "c"].map((dir) => join(root!, dir)).join(":");
    expect(findBrowser(env({ PATH }), "linux")).toEqual({
      found: true,
      path: browser,
      via: "chromium-browser on the PATH",
    });
    expect(findBrowser(env({ PATH: join(chrome, "..") }), "linux")).toMatchObject({ path: chrome });
  });

  it("falls back to the newest Chromium Playwright installed in its cache", () => {
    program("cache/chromium-1100/chrome-linux/chrome");
    const newest = program("cache/chromium-1255/chrome-linux64/chrome");
    program("cache/chromium_headless_shell-1300/chrome-linux/headless_shell");
    expect(findBrowser(env({ PLAYWRIGHT_BROWSERS_PATH: join(root!, "cache") }), "linux")).toEqual({
      found: true,
      path: newest,
      via: "Playwright's cache",
    });
    const mac = program("cache/chromium-1300/chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium");
    expect(findBrowser(env({ PLAYWRIGHT_BROWSERS_PATH: join(root!, "cache") }), "darwin", [])).toMatchObject({
      path: mac,
    });
  });

  it("on macOS, takes Chrome's or Chromium's application bundle before Playwright's cache", () => {
    program("cache/chromium-1255/chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium");
    const chromiumApp = program("Applications/Chromium.app/Contents/MacOS/Chromium");
    const lookup = findBrowser(env({ PLAYWRIGHT_BROWSERS_PATH: join(root!, "cache") }), "darwin", [
      join(root!, "Applications"),
    ]);
    expect(lookup).toEqual({ found: true, path: chromiumApp, via: "an application bundle" });
    const chrome = program("Applications/Google Chrome.app/Contents/MacOS/Google Chrome");
    expect(findBrowser(env(), "darwin", [join(root!, "Applications")])).toMatchObject({ path: chrome });
  });

  it("finds nothing where there is nothing, without a problem to report", () => {
    expect(findBrowser(env(), "linux")).toEqual({ found: false });
  });
});
