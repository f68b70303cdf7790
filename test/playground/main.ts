/**
 * `npm run playground`: the bot with no credentials, against the fakes, in a browser page.
 * PLAYGROUND_PORT (default 3100; 0 picks a free one), PLAYGROUND_SCALE (default 0.1: an image takes
 * 2 s, a photo-avatar design 4 s), LOG_LEVEL for the bot's own log lines (default warn).
 */
import { pino } from "pino";
import { startServer } from "./server.js";
import { startWorld } from "./world.js";

const port = Number(process.env.PLAYGROUND_PORT ?? 3100);
const scale = Number(process.env.PLAYGROUND_SCALE ?? 0.1);
const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" });

const world = await startWorld({ scale, logger });
let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(world, port);
} catch (error) {
  await world.close();
  if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
  console.error(`Port ${port} is taken: set PLAYGROUND_PORT to another one (0 picks a free one).`);
  process.exit(1);
}
console.log(`Playground: ${server.url}  (Discord and Slack side by side; Ctrl+C stops it)`);
console.log(`The bot's own server: ${world.botUrl}/healthz and /readyz`);

// A body the real Discord would refuse is a bug of the bot: say so where the developer looks.
let reported = 0;
const refusals = setInterval(() => {
  for (const error of world.discord.validationErrors.slice(reported)) {
    logger.warn(
      { method: error.method, path: error.path, issues: error.issues },
      "Discord would refuse this",
    );
  }
  reported = world.discord.validationErrors.length;
}, 1000);

const stop = () => {
  clearInterval(refusals);
  void server
    .close()
    .then(() => world.close())
    .finally(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
