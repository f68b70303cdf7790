import type { IncomingMessage, ServerResponse } from "node:http";
import { parse } from "node:querystring";
import type { App, HTTPReceiver } from "@slack/bolt";
import type { Logger } from "../core/base/log.js";
import type { Intake } from "../core/intake/intake.js";
import { type BufferedRequest, SlackSignature } from "./signature.js";

/**
 * POST /slack/events: the request verified once (signature.ts), then
 *
 * - a slash command or a click (block_actions) is acknowledged here, with the empty 200 its
 *   listener always answers first (listeners/commands.ts, actions.ts), and only then given to
 *   Bolt (`app.processEvent`, its `ack` a no-op), parsed once. Slack waits 3 s for that answer and
 *   a whole team may click at once: Bolt's dispatch (authorization, every listener's middleware,
 *   the listener itself) no longer stands between a request and its ack, and waits, as the rest of
 *   the work behind the acks does, while a burst is still arriving (`intake`): the event loop
 *   turns of a burst then read, check, parse and answer requests, and accept the next ones;
 * - anything else (a form submitted, whose ack may carry errors; a search in a select, whose ack
 *   is the options; events; Slack's URL and certificate checks) goes through Bolt's receiver as
 *   it comes, its body already read and checked.
 */
export function slackEventsRoute(options: {
  app: App;
  receiver: HTTPReceiver;
  signingSecret: string;
  logger: Logger;
  intake?: Intake;
}): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { app, receiver, logger, intake } = options;
  const signature = new SlackSignature(options.signingSecret);
  const noAck = async () => undefined;
  return async (req, res) => {
    const checked = await signature.read(req, res);
    if ("refused" in checked) {
      logger.warn({ ...checked.refused }, "Slack: refused a request that is not Slack's");
      return;
    }
    const body = commandOrClick(checked.request);
    if (!body) {
      receiver.requestListener(checked.request, res);
      return;
    }
    res.writeHead(200).end();
    await intake?.settled();
    const retryNum = req.headers["x-slack-retry-num"];
    const retryReason = req.headers["x-slack-retry-reason"];
    await app
      .processEvent({
        body,
        ack: noAck,
        ...(typeof retryNum === "string" && { retryNum: Number.parseInt(retryNum, 10) }),
        ...(typeof retryReason === "string" && { retryReason }),
        customProperties: {},
      })
      .catch((error: unknown) => logger.error({ err: error }, "Slack: an acknowledged request failed"));
  };
}

/**
 * The parsed body of a slash command or a click, which this route acknowledges itself; undefined
 * for every other request (or a body that does not parse: Bolt answers it as it always did).
 */
function commandOrClick(req: BufferedRequest): Record<string, unknown> | undefined {
  if (req.headers["content-type"] !== "application/x-www-form-urlencoded") return undefined;
  const form = parse(req.rawBody.toString());
  const { payload } = form;
  if (form.ssl_check !== undefined) return undefined;
  if (typeof payload !== "string") return typeof form.command === "string" ? form : undefined;
  try {
    const interaction = JSON.parse(payload) as Record<string, unknown>;
    return interaction.type === "block_actions" ? interaction : undefined;
  } catch {
    return undefined;
  }
}
