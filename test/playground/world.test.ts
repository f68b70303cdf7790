import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, expect } from "vitest";
import { LocalTool } from "../local-tools.js";
import { type PlaygroundServer, startServer } from "./server.js";
import { type PlaygroundWorld, startWorld } from "./world.js";

/**
 * "Nothing leaves this machine", as the page says: every server the playground starts listens on
 * 127.0.0.1 only, which a connection to the machine's own network address shows.
 */

const outside = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && !address.internal && address.family === "IPv4")?.address;

const networkAddress = new LocalTool({
  name: "a network address besides the loopback",
  hint: "the check that the playground listens on 127.0.0.1 only connects to the machine's own address",
  probe: () => outside !== undefined,
});

/** "connected" or the error's code: what a client from the network would get. */
function dial(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

networkAddress.describe("the playground's servers", () => {
  let world: PlaygroundWorld;
  let server: PlaygroundServer;
  beforeAll(async () => {
    world = await startWorld({ scale: 0.01 });
    server = await startServer(world);
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await world?.close();
  });

  networkAddress.it("listen on 127.0.0.1 only, and the page and the bot answer /healthz there", async () => {
    const servers = {
      page: server.url,
      bot: world.botUrl,
      emulator: world.emulator.url,
      discord: world.discord.restUrl,
      slack: world.slack.apiUrl,
    };
    const ports = Object.fromEntries(
      Object.entries(servers).map(([name, url]) => [name, Number(new URL(url).port)]),
    );
    const reached: Record<string, [string, string]> = {};
    for (const [name, port] of Object.entries(ports))
      reached[name] = [await dial("127.0.0.1", port), await dial(outside!, port)];
    expect(reached).toEqual(
      Object.fromEntries(Object.keys(ports).map((name) => [name, ["connected", "ECONNREFUSED"]])),
    );

    for (const url of [new URL("healthz", server.url), new URL("/healthz", world.botUrl)]) {
      const answer = await fetch(url);
      expect([answer.status, await answer.json()]).toEqual([200, { status: "ok" }]);
    }
  });
});
