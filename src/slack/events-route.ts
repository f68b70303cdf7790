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
 *   a whole team may click at once: the parse and Bolt's dispatch (authorization, every
 *   listener's middleware, the listener itself) no longer stand between a request and its ack,
 *   and wait, as the rest of the work behind the acks does, while a burst is still arriving
 *   (`intake`): the event loop's turns in a burst read, check and answer requests, and accept
 *   the next ones, as a bare server's do;
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
  const dispatcher = new Turns(DISPATCHES_PER_TURN);
  return async (req, res) => {
    const checked = await signature.read(req, res);
    if ("refused" in checked) {
      logger.warn({ ...checked.refused }, "Slack: refused a request that is not Slack's");
      return;
    }
    if (!isCommandOrClick(checked.request)) {
      receiver.requestListener(checked.request, res);
      return;
    }
    res.writeHead(200).end();
    await intake?.settled();
    await dispatcher.turn();
    const body = parsed(checked.request);
    if (!body) {
      logger.warn("Slack: an acknowledged command or click did not parse");
      return;
    }
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
 * Dispatches (a parse, Bolt's middleware, the listener up to the fair queue) started in one turn
 * of the event loop: a burst's worth let go at once would hold the loop for its whole sum, and
 * a connection still arriving (a burst longer than the intake's hold) waits that long to be accepted.
 */
const DISPATCHES_PER_TURN = 8;

/** Lets `perTurn` callers go in each turn of the loop (its check phase), in the order they came. */
class Turns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  constructor(private readonly perTurn: number) {}

  turn(): Promise<void> {
    return new Promise((go) => {
      this.waiting.push(go);
      if (!this.scheduled) this.next();
    });
  }

  private next(): void {
    this.scheduled = true;
    setImmediate(() => {
      for (const go of this.waiting.splice(0, this.perTurn)) go();
      if (this.waiting.length > 0) this.next();
      else this.scheduled = false;
    });
  }
}

const FORM = "application/x-www-form-urlencoded";
/** `"type":"block_actions"` as Slack's form encoding writes it in a payload. */
const BLOCK_ACTIONS = "%22type%22%3A%22block_actions%22";

/**
 * A slash command (a form with a `command` field) or a click (a `payload` of type block_actions),
 * which this route acknowledges itself; told from the raw body without parsing it, so that the
 * parse waits with the rest until the burst has passed. A form's keys stand after `&` (values
 * have theirs encoded), and only a click's payload says block_actions at its top level. Anything
 * not recognised takes Bolt's way, which is right for every request, only slower.
 */
function isCommandOrClick(req: BufferedRequest): boolean {
  if (req.headers["content-type"] !== FORM) return false;
  const body = req.rawBody;
  const hasKey = (key: string) => body.indexOf(`${key}=`) === 0 || body.includes(`&${key}=`);
  if (body.indexOf("payload=") === 0) return body.includes(BLOCK_ACTIONS);
  return hasKey("command") && !hasKey("ssl_check") && !hasKey("payload");
}

/** The body as Bolt would parse it (HTTPModuleFunctions' parseHTTPRequestBody): a form, or its payload. */
function parsed(req: BufferedRequest): Record<string, unknown> | undefined {
  const form = parse(req.rawBody.toString());
  if (typeof form.payload !== "string") return form;
  try {
    return JSON.parse(form.payload) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
