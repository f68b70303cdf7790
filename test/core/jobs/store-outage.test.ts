import KeyvSqlite from "@keyv/sqlite";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Liveness } from "../../../src/core/jobs/liveness.js";
import { openStores } from "../../../src/store/index.js";
import { redisServer, startRestartableRedis } from "../../store/redis-server.js";
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

redisServer.describe("a claim when redis restarts", () => {
  it("one released while redis is down is released once it is back: this process's next delivery or start is not held", async () => {
    const redis = await startRestartableRedis();
    const stores = await openStores(redis.url, undefined, pino({ level: "silent" }));
    const liveness = new Liveness({
      ...stores,
      instanceId: "outage-0",
      explicit: true,
      heartbeatMs: 100,
      lapseMs: 400,
      logger: pino({ level: "silent" }),
    });
    try {
      expect(await liveness.claim("start:person", 60_000)).toBe(true);
      await redis.down();
      await liveness.release("start:person");
      await redis.up();
      await stores.availability.whenAvailable();
      await until(
        "the claim is released",
        async () => (await stores.claims.holder("start:person")) === undefined,
        5_000,
      );
      // A delivery's claim this process holds already (its acquire landed, its answer was lost) is its own to take.
      expect(await liveness.claim("deliver:job", 60_000)).toBe(true);
      expect(await liveness.claim("deliver:job", 60_000)).toBe(false);
      expect(await liveness.claim("deliver:job", 60_000, { reentrant: true })).toBe(true);
    } finally {
      await stores.close();
      await redis.stop();
    }
  }, 30_000);
});
