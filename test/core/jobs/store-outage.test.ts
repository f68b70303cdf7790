import KeyvSqlite from "@keyv/sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RecordingHooks, startWorld, until, type World } from "./world.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.nextTest());
afterAll(() => world.close());

describe("the store away right after a creation call", () => {
  it("records the job once the store is back, then polls and delivers it once", async () => {
    const hooks = new RecordingHooks(world.api);
    const { engine, stores } = await world.engine(hooks);
    await engine.start();
    const request = await world.serviceJob("image", { durationMs: 300 });
    // Another process holds the sqlite file's write lock past the busy timeout: the store is away
    // just as the service's answer arrives.
    const other = new KeyvSqlite({ uri: world.storeUrl });
    await other.query("BEGIN EXCLUSIVE");
    let tracked = false;
    const tracking = engine.track(request).then((job) => {
      tracked = true;
      return job;
    });
    // The engine's statements queued meanwhile each wait out sqlite's busy timeout (5 s) first.
    await until("the store is away", () => !stores.availability.available, 30_000);
    expect(tracked).toBe(false);
    await other.query("ROLLBACK");
    await other.disconnect();

    const job = await tracking;
    await until("the job is delivered", () => hooks.for(hooks.delivered, job.id).length > 0, 10_000);
    expect(hooks.delivered).toHaveLength(1);
    expect((await stores.jobs.listByRequester(job.requester, 10)).map((j) => j.serviceJobId)).toEqual([
      request.serviceJobId,
    ]);
  }, 45_000);
});
