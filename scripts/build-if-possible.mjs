// `npm start` builds first on a developer clone (TypeScript is installed), while a production image
// has no compiler and ships dist/ already built by the Dockerfile's build stage.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const tsc = new URL("../node_modules/typescript/bin/tsc", import.meta.url);
if (existsSync(tsc)) {
  execFileSync(process.execPath, [tsc.pathname, "-p", "tsconfig.build.json"], { stdio: "inherit" });
} else if (!existsSync(new URL("../dist/main.js", import.meta.url))) {
  console.error("dist/main.js is missing and TypeScript is not installed: run `npm ci` first.");
  process.exit(1);
}
