import { once } from "node:events";
import { openClaims } from "../../src/store/claims.js";
import { openKeyvBackend } from "../../src/store/keyv.js";

/**
 * A competitor in another process: opens its own connection to the store, says "ready", waits
 * for a line on stdin, then tries to acquire every key at once and prints the keys it won.
 * Usage: node --import tsx claim-worker.ts <store url> <owner> <key>...
 */
const [url, owner, ...keys] = process.argv.slice(2);
const backend = await openKeyvBackend(url);
const claims = await openClaims(backend.connection);
process.stdout.write("ready\n");
await once(process.stdin, "data");
const won = await Promise.all(keys.map((key) => claims.acquire(key, owner!, 60_000)));
process.stdout.write(`${JSON.stringify(keys.filter((_, i) => won[i]))}\n`);
await backend.close();
process.exit(0);
