/**
 * The media API emulator in a process of its own for bench/discord-ack, so that the work behind
 * the acknowledgements (creation calls, polls, downloads) does not share the event loop of the
 * fake Discord, which timestamps the dispatches and the defers. Prints its URL as one JSON line;
 * stops when stdin ends.
 */
import { startEmulator } from "../../test/fakes/media-api/index.js";

const emulator = await startEmulator({ timeScale: 0.01 });
emulator.account("test-key").creditsLimit = 1_000_000_000;
console.log(JSON.stringify({ url: emulator.url }));
process.stdin.resume();
process.stdin.on("end", () => {
  void emulator.close().then(() => process.exit(0));
});
