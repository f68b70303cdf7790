/**
 * Runs one big transfer through the client in a process of its own, so that its memory is not
 * mixed with the emulator's or the test runner's, and prints what it measured as one JSON line.
 *
 *   node --expose-gc --import tsx memory-probe.ts <origin> upload <bytes>
 *   node --expose-gc --import tsx memory-probe.ts <origin> download <videoId>
 */
import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { createMediaClient } from "../../../src/core/api/index.js";
import { generatedBytes } from "./bytes.js";

const [origin, mode, arg] = process.argv.slice(2);
if (!origin || !arg || (mode !== "upload" && mode !== "download"))
  throw new Error("usage: <origin> upload|download <arg>");
// Samples are taken right after a full collection, so they show what is held (a file kept whole
// would show as 50 MB), not garbage that no collection has come for yet.
const gc = globalThis.gc;
if (!gc) throw new Error("run with --expose-gc");

const client = createMediaClient({ baseUrl: origin, timeoutMs: 20_000 });
const api = client.as("test-key");
const file = (size: number) => ({ fileName: "probe.bin", contentType: "video/mp4", size });

// Warm up: modules, JIT and the connection pool are not what is being measured.
await api.media.upload(generatedBytes(256 * 1024), file(256 * 1024));
gc();
const base = process.memoryUsage();
const peak = { rss: 0, arrayBuffers: 0 };
const hash = createHash("sha256");
let bytes = 0;
let nextSample = 0;

/**
 * Sampled from the data path every 2 MB rather than on a timer: a localhost transfer can run for
 * a long stretch of microtasks in which no timer fires.
 */
function passing(chunk: Buffer) {
  bytes += chunk.length;
  hash.update(chunk);
  if (bytes < nextSample) return;
  nextSample += 2 * 1024 * 1024;
  gc!();
  const now = process.memoryUsage();
  peak.rss = Math.max(peak.rss, now.rss - base.rss);
  peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers - base.arrayBuffers);
}

let result: Record<string, unknown>;
if (mode === "upload") {
  const size = Number(arg);
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      passing(chunk);
      done(null, chunk);
    },
  });
  result = { mediaId: await api.media.upload(generatedBytes(size).pipe(tap), file(size)) };
} else {
  const download = await api.videos.download(arg);
  for await (const chunk of download.body) passing(chunk);
  result = { size: download.size };
}
await client.close();

process.stdout.write(
  `${JSON.stringify({ ...result, bytes, sha256: hash.digest("hex"), rssGrowth: peak.rss, arrayBuffersGrowth: peak.arrayBuffers })}\n`,
);
