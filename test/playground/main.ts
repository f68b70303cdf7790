/**
 * `npm run playground`: the bot with no credentials, against the fakes, in a browser page.
 * PLAYGROUND_PORT (default 3100; 0 picks a free one), PLAYGROUND_SCALE (default 0.1: an image takes
 * 2 s, a photo-avatar design 4 s).
 */
import { startServer } from "./server.js";
import { startWorld } from "./world.js";

const port = Number(process.env.PLAYGROUND_PORT ?? 3100);
const scale = Number(process.env.PLAYGROUND_SCALE ?? 0.1);

const world = await startWorld({ scale });
const server = await startServer(world, port);
console.log(`Playground: ${server.url}  (Discord and Slack side by side; Ctrl+C stops it)`);

process.once("SIGINT", () => {
  void server
    .close()
    .then(() => world.close())
    .finally(() => process.exit(0));
});
