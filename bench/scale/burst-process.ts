/**
 * The load balancer in front of the replicas and the client that sends a burst through it, in a
 * process of their own: the fakes (which the replicas keep busy right after their acks) run in the
 * parent and must not delay reading the acks. Plain node:http and a new connection per request,
 * as Slack's deliveries come.
 *
 * Argument: JSON array of the replicas' origins. Out: { type: "ready" }. In: { requests } (signed
 * bodies and headers); out: [{ ms, ok, replica }] in the same order.
 */
import http from "node:http";
import { REPLICA_HEADER, startBalancer } from "../../test/balancer.js";

export interface BurstRequest {
  body: string;
  headers: Record<string, string>;
}

export interface Timed {
  ms: number;
  ok: boolean;
  replica: number;
}

const balancer = await startBalancer(JSON.parse(process.argv[2] ?? "[]") as string[]);
const url = `${balancer.url}/slack/events`;
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

function send({ body, headers }: BurstRequest): Promise<Timed> {
  return new Promise((resolve) => {
    const start = performance.now();
    const done = (ok: boolean, replica: number) => resolve({ ms: performance.now() - start, ok, replica });
    const req = http.request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode === 200, Number(res.headers[REPLICA_HEADER] ?? -1)));
      },
    );
    req.on("error", () => done(false, -1));
    req.end(body);
  });
}

process.on("message", ({ requests }: { requests: BurstRequest[] }) => {
  void Promise.all(requests.map(send)).then((timed) => process.send?.(timed));
});
process.on("disconnect", () => void balancer.close().finally(() => process.exit(0)));
process.send?.({ type: "ready" });
