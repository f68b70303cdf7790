/**
 * A process with the guard installed that lets one fault escape on purpose, named by argv[2]:
 *   rejection    a promise rejected with nobody to catch it
 *   stray-body   an HTTP body closed unread with no error listener (undici reports an abort)
 *   bug          a TypeError thrown from a timer
 * It then prints "alive" after a moment if it still runs. Logs go to stdout as pino JSON lines.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { request } from "undici";
import { guardProcess } from "../src/process-guard.js";

guardProcess(pino({ level: "info" }));

const fault = process.argv[2];
if (fault === "rejection") {
  void Promise.reject(new Error("nobody caught this"));
} else if (fault === "stray-body") {
  const server = createServer((_, res) => res.writeHead(404).end("gone"));
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const answer = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the whole body has arrived, unread
  answer.body.destroy();
  server.close();
} else if (fault === "bug") {
  setTimeout(() => {
    (undefined as unknown as { call(): void }).call();
  }, 10);
}
setTimeout(() => console.log("alive"), 300);
