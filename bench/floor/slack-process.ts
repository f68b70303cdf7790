/**
 * The Slack floor for bench/slack-ack: a bare `node:http` server that does only what Slack
 * requires of a request URL, in a process of its own as the bot is: it reads the body, checks the
 * signature (HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret, the timestamp within
 * 5 minutes) and answers an empty 200. The same bursts sent here in the same run tell what this
 * machine's loopback, connections and parsing cost now; the bot's figures are read against them.
 * Prints its URL as one JSON line; stops when stdin ends.
 *
 *   node --import tsx slack-process.ts <signingSecret>
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const [signingSecret] = process.argv.slice(2);
if (!signingSecret) throw new Error("usage: see the header");

const MAX_AGE_S = 5 * 60;

function signedBySlack(timestamp: string | undefined, signature: string | undefined, body: Buffer) {
  if (!timestamp || !signature) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_AGE_S) return false;
  const hmac = createHmac("sha256", signingSecret!);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  const expected = Buffer.from(`v0=${hmac.digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const ok = signedBySlack(
      req.headers["x-slack-request-timestamp"] as string | undefined,
      req.headers["x-slack-signature"] as string | undefined,
      Buffer.concat(chunks),
    );
    res.writeHead(ok ? 200 : 401).end();
  });
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/slack/events` }));
});

process.stdin.resume();
process.stdin.on("end", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
