// `npm start`'s first step. On a developer clone (TypeScript installed) it compiles only when a
// source or a build setting is newer than the last successful build, so an unchanged clone starts
// at once instead of spending about 15 s in tsc. A production image has no compiler and ships
// dist/ already built by the Dockerfile's build stage. `--always` builds in any case (`npm run build`).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Written after a build that succeeded: a failed one leaves it old, so the next start tries again. */
export const STAMP = "dist/.build-stamp";
const SETTINGS = ["tsconfig.json", "tsconfig.build.json", "package-lock.json"];

function newestIn(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (newest, name) => Math.max(newest, newestIn(join(path, name))),
    stat.mtimeMs,
  );
}

/** True when dist/ is missing, or older than a file under src/ or a build setting. */
export function isStale(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return [join(root, "src"), ...SETTINGS.map((name) => join(root, name))].some(
    (path) => newestIn(path) > built,
  );
}

function main() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  if (!existsSync(tsc)) {
    if (existsSync(join(root, "dist/main.js"))) return;
    console.error("dist/main.js is missing and TypeScript is not installed: run `npm ci` first.");
    process.exit(1);
  }
  if (!process.argv.includes("--always") && !isStale(root)) return;
  try {
    // tsc's errors go to stderr: stdout belongs to the script this step comes before (`npm run
    // jobs --json` pipes JSON).
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
      cwd: root,
      stdio: ["inherit", process.stderr, "inherit"],
    });
  } catch {
    console.error("The build failed (tsc's errors are above): the bot was not started.");
    process.exit(1);
  }
  writeFileSync(join(root, STAMP), `${new Date().toISOString()}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
