import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "./index.js";
import { quiet } from "./quiet-logger.js";

const open: { fake: FakeSlack; app: Server }[] = [];
afterEach(async () => {
  for (const { fake, app } of open.splice(0)) {
    await fake.close();
    await new Promise((resolve) => app.close(resolve));
  }
});

/** The fake, and an app that acknowledges every event (and keeps what it got). */
async function world(opts?: FakeSlackOptions) {
  const fake = await startFakeSlack(opts);
  const events: unknown[] = [];
  const app = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      events.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  open.push({ fake, app });
  const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`;
  const client = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logger: quiet });
  const run = () => fake.functionExecuted(url, { callbackId: "generate_image", inputs: { prompt: "a fox" } });
  return { fake, events, client, run };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: { data?: { error?: string } }) => error.data?.error,
  );

describe("workflow steps in the fake Slack", () => {
  it("sends function_executed with the execution's own token, as an Events API callback", async () => {
    const { run, events } = await world();
    const { execution } = await run();

    expect(events).toEqual([
      expect.objectContaining({
        type: "event_callback",
        event: expect.objectContaining({
          type: "function_executed",
          function: expect.objectContaining({ callback_id: "generate_image" }),
          inputs: { prompt: "a fox" },
          function_execution_id: execution.id,
          bot_access_token: execution.token,
        }),
      }),
    ]);
  });

  it("completes an execution once, with its own token only", async () => {
    const { fake, run, client } = await world();
    const { execution } = await run();
    const own = client(execution.token);
    const args = { function_execution_id: execution.id, outputs: { job_id: "j" } };

    // The bot token cannot complete it, and the function's token does nothing else.
    expect(await refusal(client(fake.botToken).functions.completeSuccess(args))).toBe(
      "not_allowed_token_type",
    );
    expect(await refusal(own.chat.postMessage({ channel: fake.channelId, text: "hi" }))).toBe(
      "not_allowed_token_type",
    );
    expect(await refusal(own.functions.completeSuccess(args))).toBe("ok");
    expect(
      await refusal(own.functions.completeError({ function_execution_id: execution.id, error: "x" })),
    ).toBe("execution_not_in_running_state");
    expect(execution).toMatchObject({ state: "completed", outputs: { job_id: "j" } });
  });

  it("refuses a function token past its lifetime", async () => {
    const { run, client } = await world({ functionTokenTtlMs: 50 });
    const { execution } = await run();
    await new Promise((resolve) => setTimeout(resolve, 80));

    const answer = client(execution.token).functions.completeError({
      function_execution_id: execution.id,
      error: "too late",
    });

    expect(await refusal(answer)).toBe("token_expired");
    expect(execution.state).toBe("running");
  });
});
