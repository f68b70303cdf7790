import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { watched } from "../watch.js";
import { Failure, HttpError } from "./errors.js";
import { type Ctx, contentTypeOf, parseJsonBody, type Reply } from "./http.js";
import { pathMatches } from "./paths.js";
import { type Route, resolve } from "./router.js";
import { accountRoutes } from "./routes/account.js";
import { imageRoutes } from "./routes/images.js";
import { mediaRoutes } from "./routes/media.js";
import { mockupRoutes } from "./routes/mockups.js";
import { photoAvatarRoutes } from "./routes/photo-avatars.js";
import { storageRoutes } from "./routes/storage.js";
import { thumbnailRoutes } from "./routes/thumbnails.js";
import { videoRoutes } from "./routes/videos.js";
import { State } from "./state.js";
import type { Emulator, EmulatorOptions, Fault, RecordedCall } from "./types.js";

function errorReply(error: unknown): Reply {
  if (error instanceof HttpError)
    return { status: error.status, json: { error: error.message, ...error.extra } };
  if (error instanceof Failure) return { json: { result: "failure", error: error.message, ...error.extra } };
  console.error("media-api emulator: unexpected error", error);
  return { status: 500, json: { error: "internal server error" } };
}

/** A canned answer, or undefined when the fault is only a delay. */
async function faultReply(ctx: Ctx, fault: Fault): Promise<Reply | undefined> {
  if (fault.delayMs) await sleep(fault.delayMs);
  if (fault.status === undefined && fault.body === undefined && fault.raw === undefined) return undefined;
  // Keep what the client sent, so tests can still check the request that met the fault.
  if (contentTypeOf(ctx.req) === "application/json")
    ctx.call.json = await parseJsonBody(ctx.req).catch(() => undefined);
  const status = fault.status ?? 200;
  const headers = { "content-type": "application/json", ...fault.headers };
  if (fault.raw !== undefined) return { status, headers, text: fault.raw };
  return { status, headers, json: fault.body ?? { error: `injected fault (HTTP ${status})` } };
}

/** The route's own answer to a request. */
async function served(routes: Route[], ctx: Ctx): Promise<Reply> {
  const found = resolve(routes, ctx.method, ctx.path);
  if (found === "method_not_allowed") return { status: 405, json: { error: "method not allowed" } };
  if (!found) return { status: 404, json: { error: `no route for ${ctx.method} ${ctx.path}` } };
  return found.route.handle({ ...ctx, params: found.params });
}

interface Answer {
  reply?: Reply;
  hangUp?: Fault["hangUp"];
}

async function answer(routes: Route[], ctx: Ctx): Promise<Answer> {
  try {
    const fault = ctx.state.faults.take(ctx.method, ctx.path);
    if (fault?.applyFirst) {
      const reply = await served(routes, ctx);
      if (fault.delayMs) await sleep(fault.delayMs);
      return { reply, hangUp: fault.hangUp };
    }
    const canned = fault && (await faultReply(ctx, fault));
    if (fault?.hangUp === "unapplied") return { hangUp: fault.hangUp };
    if (canned && !fault.hangUp) return { reply: canned };
    return { reply: await served(routes, ctx), hangUp: fault?.hangUp };
  } catch (error) {
    // The client went away while its body was read (an aborted upload): nobody to answer. The
    // socket tells, not the request: a request whose body was read to its end is destroyed too.
    if (ctx.req.socket.destroyed) return {};
    return { reply: errorReply(error) };
  }
}

/** Resolves once `bytes` are handed to the kernel, so they reach the client before the connection goes. */
function flushed(res: ServerResponse, bytes: Uint8Array | string): Promise<void> {
  return new Promise((done) => res.write(bytes, () => done()));
}

/** Headers and the first half of the answer, then the connection closes: a transfer cut short. */
async function writeHalf(res: ServerResponse, call: RecordedCall, reply: Reply): Promise<void> {
  const status = reply.status ?? 200;
  call.status = status;
  if ("stream" in reply) {
    res.writeHead(status, { ...reply.headers, "content-length": reply.size });
    let left = Math.floor(reply.size / 2);
    for await (const chunk of reply.stream as AsyncIterable<Buffer>) {
      const part = chunk.subarray(0, left);
      await flushed(res, part);
      left -= part.length;
      if (left <= 0) break;
    }
  } else {
    const text = "json" in reply ? JSON.stringify(reply.json) : reply.text;
    const type = "json" in reply ? { "content-type": "application/json" } : {};
    res.writeHead(status, { ...type, ...reply.headers, "content-length": Buffer.byteLength(text) });
    await flushed(res, text.slice(0, Math.floor(text.length / 2)));
  }
  res.destroy();
}

async function write(res: ServerResponse, call: RecordedCall, reply: Reply, head: boolean): Promise<void> {
  if (res.destroyed) return; // the client went away (an aborted upload): nothing to answer
  const status = reply.status ?? 200;
  call.status = status;
  if ("stream" in reply) {
    res.writeHead(status, { ...reply.headers, "content-length": reply.size });
    if (head) {
      reply.stream.destroy();
      res.end();
      return;
    }
    await pipeline(reply.stream, res).catch(() => undefined); // a client may stop reading midway
    return;
  }
  const text = "json" in reply ? JSON.stringify(reply.json) : reply.text;
  const type = "json" in reply ? { "content-type": "application/json" } : {};
  // The service's own words (names, prompts, reasons) may be quoted to people as they came.
  watched.given("json" in reply ? reply.json : text);
  res.writeHead(status, { ...type, ...reply.headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Sends the answer, or hangs up instead as a fault says (a recorded status of 0: nothing was answered). */
async function deliver(res: ServerResponse, call: RecordedCall, { reply, hangUp }: Answer): Promise<void> {
  if (res.destroyed) return;
  if (!reply || hangUp === "unapplied" || hangUp === "applied") {
    res.destroy();
    return;
  }
  if (hangUp === "mid-body") return writeHalf(res, call, reply);
  return write(res, call, reply, call.method === "HEAD");
}

function record(state: State, req: IncomingMessage, url: URL): RecordedCall {
  const key = req.headers["x-api-key"];
  const contentType = req.headers["content-type"];
  const call: RecordedCall = {
    method: req.method ?? "GET",
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    status: 0,
    ...(typeof key === "string" ? { apiKey: key } : {}),
    ...(contentType ? { contentType } : {}),
    at: state.now(),
  };
  state.calls.push(call);
  return call;
}

export async function createEmulator(opts: EmulatorOptions): Promise<Emulator> {
  const state = new State(opts);
  const routes: Route[] = [
    ...accountRoutes,
    ...mediaRoutes,
    ...storageRoutes,
    ...videoRoutes,
    ...photoAvatarRoutes,
    ...imageRoutes,
    ...mockupRoutes,
    ...thumbnailRoutes(state.settings.thumbnailsListPath),
  ];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://emulator");
    const call = record(state, req, url);
    const ctx: Ctx = {
      state,
      req,
      method: call.method,
      path: call.path,
      query: call.query,
      params: {},
      call,
    };
    void answer(routes, ctx)
      .then((answered) => deliver(res, call, answered))
      .catch((error: unknown) => {
        console.error("media-api emulator: could not answer", error); // e.g. an invalid injected header
        res.destroy();
      });
  });
  // Large uploads and slow faults must not trip Node's default request timeouts.
  server.requestTimeout = 0;
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(opts.port ?? 0, "127.0.0.1", () => listening());
  });
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: state.origin,
    calls: state.calls,
    callsTo: (method, path) =>
      state.calls.filter((call) => call.method === method.toUpperCase() && pathMatches(path, call.path)),
    account: (apiKey) => {
      const account = state.accounts.find(apiKey);
      if (!account) throw new Error(`media-api emulator: no account with key ${apiKey}`);
      return account;
    },
    inject: (fault) => state.faults.inject(fault),
    planNextJob: (kind, plan) => state.jobs.plan(kind, plan),
    reset: () => state.reset(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
    addAccount: (seed) => state.accounts.add(seed),
    seedMedia: (apiKey, media) =>
      state.media.seed(apiKey, {
        fileName: media.fileName ?? "seeded",
        contentType: media.contentType,
        fileSize: media.fileSize ?? 1024,
      }).id,
    media: (mediaId) => state.media.info(mediaId),
  };
}
