/**
 * The Discord HTTP floor for bench/discord-interactions: a bare `node:http` server that does only
 * what Discord requires of an Interactions Endpoint URL, in a process of its own as the bot is:
 * it reads the body, checks the Ed25519 signature over timestamp and body (401 when it does not
 * hold, as Discord's own checks expect), answers a PING with PONG and any other interaction with a
 * 200 whose body is a deferred reply (type 5). Prints its URL as one JSON line; stops when stdin
 * ends.
 *
 *   node --import tsx interactions-process.ts <publicKeyHex>
 */
import { createPublicKey, verify } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const [publicKeyHex] = process.argv.slice(2);
if (!publicKeyHex) throw new Error("usage: see the header");

const key = createPublicKey({
  // An Ed25519 SubjectPublicKeyInfo's DER header, then the 32 bytes the portal shows.
  key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(publicKeyHex, "hex")]),
  format: "der",
  type: "spki",
});
const PONG = JSON.stringify({ type: 1 });
const DEFERRED = JSON.stringify({ type: 5 });

function signedByDiscord(timestamp: string | undefined, signature: string | undefined, body: Buffer) {
  if (!timestamp || !signature || !/^[0-9a-f]{128}$/i.test(signature)) return false;
  return verify(null, Buffer.concat([Buffer.from(timestamp), body]), key, Buffer.from(signature, "hex"));
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const signed = signedByDiscord(
      req.headers["x-signature-timestamp"] as string | undefined,
      req.headers["x-signature-ed25519"] as string | undefined,
      body,
    );
    if (!signed) {
      res.writeHead(401).end();
      return;
    }
    const answer = (JSON.parse(body.toString("utf8")) as { type: number }).type === 1 ? PONG : DEFERRED;
    res.writeHead(200, { "content-type": "application/json", "content-length": answer.length }).end(answer);
  });
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/discord/interactions` }));
});

process.stdin.resume();
process.stdin.on("end", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
