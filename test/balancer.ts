import { Agent, createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small round-robin load balancer in front of several bot replicas, as an operator would put
 * nginx or a cloud load balancer: each request goes to the next replica; a replica that refuses
 * the connection (killed) is skipped, and the request, which it never received, goes to the next
 * one (a health-checked balancer does the same). A replica that dies with a request in flight
 * answers 502, as a real balancer would.
 */

export interface Routed {
  /** Index of the replica that answered, in the order of `backends`. */
  backend: number;
  path: string;
  status: number;
}

export interface Balancer {
  url: string;
  /** Every request answered, in order of arrival. */
  routed: Routed[];
  close(): Promise<void>;
}

/** On every answer: the index of the replica that gave it (for per-replica figures). */
export const REPLICA_HEADER = "x-balancer-replica";

const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}

/** `backends`: the replicas' origins (http://127.0.0.1:PORT). */
export async function startBalancer(backends: readonly string[]): Promise<Balancer> {
  const routed: Routed[] = [];
  // A connection per request: a pooled one to a replica killed since would fail as a reset
  // (the request may have been read) instead of a refusal (it surely was not), and get a 502.
  const agent = new Agent({ keepAlive: false });
  let next = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const first = next;
      next = (next + 1) % backends.length;
      const attempt = (tried: number) => {
        const backend = (first + tried) % backends.length;
        const target = new URL(backends[backend]!);
        const out = request({
          agent,
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...endToEnd(req.headers), host: target.host, "content-length": String(body.length) },
        });
        out.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "ECONNREFUSED" && tried + 1 < backends.length) return attempt(tried + 1);
          routed.push({ backend, path: req.url ?? "", status: 502 });
          if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
          res.end("balancer: no replica answered");
        });
        out.on("response", (answer) => {
          routed.push({ backend, path: req.url ?? "", status: answer.statusCode ?? 502 });
          res.writeHead(answer.statusCode ?? 502, { ...endToEnd(answer.headers), [REPLICA_HEADER]: backend });
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        });
        out.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(0, "127.0.0.1", () => listening());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routed,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}
