import type { IncomingMessage, ServerResponse } from "node:http";
import type { World } from "./state.js";

export const CDN_PREFIX = "/attachments/";

/** The next `times` (default 1) attachment downloads answer `status` instead of the file. */
export interface CdnFault {
  status: number;
  times?: number;
}

/** What the CDN answers with an error status: a short text page, as cdn.discordapp.com does. */
const CDN_PAGES: Record<number, string> = {
  403: "This content is no longer available.",
  404: "This content is no longer available.",
};

/** Serves attachment bytes the way cdn.discordapp.com does: no auth, by channel, id and file name. */
export function serveAttachment(
  world: World,
  faults: CdnFault[],
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const fault = faults[0];
  if (fault) {
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.shift();
    res
      .writeHead(fault.status, { "Content-Type": "text/plain" })
      .end(CDN_PAGES[fault.status] ?? `${fault.status}: Internal Server Error`);
    return;
  }
  const [, id] = new URL(req.url ?? "/", "http://fake.invalid").pathname.slice(CDN_PREFIX.length).split("/");
  const file = id ? world.files.get(id) : undefined;
  if (!file || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(404, { "Content-Type": "text/plain" }).end(CDN_PAGES[404]);
    return;
  }
  res.writeHead(200, { "Content-Type": file.contentType, "Content-Length": file.data.length });
  res.end(req.method === "HEAD" ? undefined : file.data);
}
