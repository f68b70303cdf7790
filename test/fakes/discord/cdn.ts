import type { IncomingMessage, ServerResponse } from "node:http";
import type { World } from "./state.js";

export const CDN_PREFIX = "/attachments/";

/** Serves attachment bytes the way cdn.discordapp.com does: no auth, by channel, id and file name. */
export function serveAttachment(world: World, req: IncomingMessage, res: ServerResponse): void {
  const [, id] = new URL(req.url ?? "/", "http://fake.invalid").pathname.slice(CDN_PREFIX.length).split("/");
  const file = id ? world.files.get(id) : undefined;
  if (!file || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(404, { "Content-Type": "text/plain" }).end("This content is no longer available.");
    return;
  }
  res.writeHead(200, { "Content-Type": file.contentType, "Content-Length": file.data.length });
  res.end(req.method === "HEAD" ? undefined : file.data);
}
