/**
 * The emulator by hand: `npm run emulator`. PORT (default 4010; 0 picks a free one) and
 * EMULATOR_TIME_SCALE (default 0.05: a 3-minute video takes 9 s).
 */
import { startEmulator } from "./index.js";

const port = Number(process.env.PORT ?? 4010);
const timeScale = Number(process.env.EMULATOR_TIME_SCALE ?? 0.05);
const emulator = await startEmulator({ port, timeScale });

console.log(`Media API emulator listening on ${emulator.url} (timeScale ${timeScale})`);
console.log("API keys: test-key (pro, 1000 credits), other-key (free, 50 credits)");
console.log(`Try: curl -H 'x-api-key: test-key' ${emulator.url}/api/usage`);

process.once("SIGINT", () => {
  void emulator.close().then(() => process.exit(0));
});
