import type { Route } from "./server.js";

/**
 * GET /healthz says the process answers; GET /readyz says it can work: the store answers and
 * every configured platform is connected. Orchestrators restart on the first and route traffic
 * on the second, so a Slack outage makes the bot unready, not dead.
 */

/** The reason the part is not ready, or undefined when it is. */
export type Probe = () => string | undefined | Promise<string | undefined>;

/** A probe that takes longer than this is itself the answer: the part does not answer. */
const PROBE_TIMEOUT_MS = 2_000;

/** What a part says of itself beside its check (the Redis node the bot is on), or nothing. */
export type Detail = () => Record<string, unknown> | undefined;

export class Readiness {
  readonly #probes = new Map<string, Probe>();
  readonly #details = new Map<string, Detail>();

  watch(name: string, probe: Probe): void {
    this.#probes.set(name, probe);
  }

  /** Shown under `name` in /readyz's answer, ready or not; it decides nothing. */
  describe(name: string, detail: Detail): void {
    this.#details.set(name, detail);
  }

  /** Each watched part and its problem ("ok" when it has none), and what the parts describe. */
  async check(): Promise<{
    ready: boolean;
    checks: Record<string, string>;
    details: Record<string, Record<string, unknown>>;
  }> {
    const results = await Promise.all(
      [...this.#probes].map(async ([name, probe]) => [name, await settle(probe)] as const),
    );
    const details = [...this.#details].flatMap(([name, detail]) => {
      const described = detail();
      return described ? [[name, described] as const] : [];
    });
    return {
      ready: results.every(([, problem]) => problem === undefined),
      checks: Object.fromEntries(results.map(([name, problem]) => [name, problem ?? "ok"])),
      details: Object.fromEntries(details),
    };
  }
}

async function settle(probe: Probe): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PROBE_TIMEOUT_MS} ms`), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(probe), late]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(readiness: Readiness): Route[] {
  return [
    {
      method: "GET",
      path: "/healthz",
      handle(_req, res) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"status":"ok"}\n');
      },
    },
    {
      method: "GET",
      path: "/readyz",
      async handle(_req, res) {
        const { ready, checks, details } = await readiness.check();
        res.writeHead(ready ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(`${JSON.stringify({ status: ready ? "ready" : "not ready", checks, ...details })}\n`);
      },
    },
  ];
}
