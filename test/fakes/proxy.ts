import { createServer, request as forward, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { pathMatches } from "./media-api/paths.js";

/**
 * An HTTP proxy in front of one of the fakes, for what a fake cannot show by itself: an answer
 * that comes late although the request was applied (the ambiguous outcome of a paid call), and
 * the moment a request of some kind is in flight (the chaos benchmark kills the bot then).
 * Point the bot's base URL (MEDIA_API_URL, DISCORD_REST_URL, SLACK_API_URL) at `url` + the same
 * path prefix. Absolute URLs the fakes hand out (uploads, downloads, the gateway) still go to them.
 */

export interface ProxiedRequest {
  /** Arrival order, from 1. */
  seq: number;
  method: string;
  /** The pathname, without the query string. */
  path: string;
  /** Date.now() at arrival. */
  at: number;
}

export interface ProxiedAnswer extends ProxiedRequest {
  /** The status the fake answered, or 502 when it could not be reached. */
  status: number;
}

export interface AnswerDelay {
  method?: string;
  path: string | RegExp;
  /** How long the fake's answer is held back before the client gets it. */
  ms: number;
  /** How many matching requests are delayed. Default 1. */
  times?: number;
}

export interface HttpProxy {
  /** Origin of the proxy, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** Every request so far, in arrival order. */
  requests: ProxiedRequest[];
  /** The request reaches the fake at once and is applied there; only its answer waits. */
  delayAnswer(delay: AnswerDelay): void;
  /** A request arrived (its body may still be on the way). Returns a function that unsubscribes. */
  onRequest(listener: (request: ProxiedRequest) => void): () => void;
  /** The fake answered (before any delay). */
  onAnswer(listener: (answer: ProxiedAnswer) => void): () => void;
  /** The answer was handed to the client in full (after any delay). */
  onRelayed(listener: (answer: ProxiedAnswer) => void): () => void;
  close(): Promise<void>;
}

interface Armed extends AnswerDelay {
  left: number;
}

type Listener<T> = (value: T) => void;

function listeners<T>() {
  const set = new Set<Listener<T>>();
  return {
    add(listener: Listener<T>) {
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(value: T) {
      for (const listener of set) listener(value);
    },
  };
}

const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}

/** Starts a proxy to `target` (an origin such as the emulator's url) on 127.0.0.1, a free port. */
export async function startProxy(target: string): Promise<HttpProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  const delays: Armed[] = [];
  const requested = listeners<ProxiedRequest>();
  const answered = listeners<ProxiedAnswer>();
  const relayed = listeners<ProxiedAnswer>();

  const takeDelay = (method: string, path: string): number => {
    const armed = delays.find(
      (d) => (!d.method || d.method.toUpperCase() === method) && pathMatches(d.path, path),
    );
    if (!armed) return 0;
    armed.left -= 1;
    if (armed.left <= 0) delays.splice(delays.indexOf(armed), 1);
    return armed.ms;
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const seen: ProxiedRequest = {
      seq: requests.length + 1,
      method: req.method ?? "GET",
      path: url.pathname,
      at: Date.now(),
    };
    requests.push(seen);
    requested.emit(seen);

    const out = forward({
      host: upstream.hostname,
      port: upstream.port,
      method: seen.method,
      path: req.url,
      headers: { ...endToEnd(req.headers), host: upstream.host },
    });
    // A client gone before its whole body was sent: the fake must not see half a request as whole.
    req.on("aborted", () => out.destroy());
    req.on("error", () => out.destroy());
    req.pipe(out);

    const answer = (status: number) => ({ ...seen, status });
    out.on("error", () => {
      answered.emit(answer(502));
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("proxy: the upstream could not be reached", () => relayed.emit(answer(502)));
    });
    out.on("response", (upstreamRes) => {
      const status = upstreamRes.statusCode ?? 502;
      answered.emit(answer(status));
      const relay = () => {
        // The client went away while the answer waited: the fake's answer is read and dropped.
        if (res.destroyed) {
          upstreamRes.resume();
          return;
        }
        res.writeHead(status, endToEnd(upstreamRes.headers));
        upstreamRes.pipe(res);
        res.on("finish", () => relayed.emit(answer(status)));
      };
      upstreamRes.on("error", () => res.destroy());
      const wait = takeDelay(seen.method, seen.path);
      if (wait > 0) setTimeout(relay, wait);
      else relay();
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(0, "127.0.0.1", () => listening());
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    delayAnswer(delay) {
      delays.push({ ...delay, left: delay.times ?? 1 });
    },
    onRequest: requested.add,
    onAnswer: answered.add,
    onRelayed: relayed.add,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}
