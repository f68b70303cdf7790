import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeDiscord, startFakeDiscord } from "./index.js";

/**
 * The fake's Interactions Endpoint URL against a bare HTTP server standing in for an app: what
 * saving the URL checks, and how the answers to interactions are judged, as Discord does.
 */

let fake: FakeDiscord | undefined;
let app: Server | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve) ?? resolve(undefined));
  app = undefined;
});

type Answer = (
  body: { type: number; id: string; token: string },
  res: ServerResponse,
) => void | Promise<void>;

/** An app that PONGs to PINGs, refuses bad signatures (by the fake's own signing) and answers the rest with `answer`. */
async function startApp(started: FakeDiscord, answer: Answer, options: { checkSignatures?: boolean } = {}) {
  app = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const timestamp = String(req.headers["x-signature-timestamp"]);
    const expected = started.signatureHeaders(text, timestamp)["x-signature-ed25519"];
    if (options.checkSignatures !== false && req.headers["x-signature-ed25519"] !== expected) {
      res.writeHead(401).end();
      return;
    }
    const body = JSON.parse(text);
    if (body.type === 1) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ type: 1 }));
      return;
    }
    await answer(body, res);
  });
  await new Promise<void>((resolve) => app!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(app!.address() as AddressInfo).port}/interactions`;
}

async function registerPing(started: FakeDiscord) {
  await fetch(
    `${started.restUrl}/v10/applications/${started.applicationId}/guilds/${started.guild.id}/commands`,
    {
      method: "PUT",
      headers: { authorization: `Bot ${started.token}`, "content-type": "application/json" },
      body: JSON.stringify([{ name: "ping", description: "Answers pong" }]),
    },
  );
}

describe("fake Discord Interactions Endpoint URL", () => {
  it("is not saved when the app accepts a bad signature", async () => {
    fake = await startFakeDiscord();
    const url = await startApp(fake, () => undefined, { checkSignatures: false });
    await expect(fake.setInteractionsEndpoint(url)).rejects.toThrow(/bad signature with 200, not 401/);
  });

  it("applies an inline 200 answer as the first response, after which the webhook works", async () => {
    fake = await startFakeDiscord();
    await registerPing(fake);
    let token = "";
    await fake.setInteractionsEndpoint(
      await startApp(fake, (body, res) => {
        token = body.token;
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ type: 4, data: { content: "pong" } }));
      }),
    );
    const command = await fake.sendCommand({ name: "ping" });
    const original = await fake.waitFor(() => fake?.original(command.id));
    expect(original.content).toBe("pong");
    expect(fake.interaction(command.id)?.http?.status).toBe(200);
    expect(fake.callbacks(command.id).map((c) => [c.type, c.via])).toEqual([[4, "body"]]);
    const edited = await fetch(
      `${fake.restUrl}/v10/webhooks/${fake.applicationId}/${token}/messages/@original`,
      {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "pong, edited" }),
      },
    );
    expect(edited.status).toBe(200);
    expect(fake.original(command.id)?.content).toBe("pong, edited");
    fake.assertNoValidationErrors();
  });

  it("takes a 202 or 204 with the callback before or after it, and reports one with no callback by the deadline", async () => {
    fake = await startFakeDiscord();
    await registerPing(fake);
    let mode: "first" | "after" | "never" = "first";
    const call = (body: { id: string; token: string }) =>
      fetch(`${fake!.restUrl}/v10/interactions/${body.id}/${body.token}/callback`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: 5 }),
      });
    await fake.setInteractionsEndpoint(
      await startApp(fake, async (body, res) => {
        if (mode === "first") {
          await call(body);
          res.writeHead(202).end();
        } else if (mode === "after") {
          res.writeHead(204).end();
          setTimeout(() => void call(body), 100);
        } else {
          // Past the 3 s, on the fake's clock: the deadline has come.
          fake!.clock.advance(3_000);
          res.writeHead(202).end();
        }
      }),
    );
    const answered = await fake.sendCommand({ name: "ping" });
    await fake.waitFor(() => fake?.interaction(answered.id)?.http);
    expect(fake.callbacks(answered.id).map((c) => [c.type, c.via])).toEqual([[5, "callback"]]);

    mode = "after";
    const later = await fake.sendCommand({ name: "ping" });
    await fake.waitFor(() => fake?.callbacks(later.id)[0]);
    expect(fake.interaction(later.id)?.http?.status).toBe(204);
    await fake.settled();
    fake.assertNoValidationErrors();

    mode = "never";
    const unanswered = await fake.sendCommand({ name: "ping" });
    await fake.waitFor(() => fake?.interaction(unanswered.id)?.http);
    await fake.settled();
    expect(() => fake?.assertNoValidationErrors()).toThrow(/answered 202 but no callback came in 3 s/);
    fake.validationErrors.length = 0;
  });
});
