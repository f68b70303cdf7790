import { it } from "vitest";
import { killWithAQueue } from "./queue-crash.js";
import { describeRedis } from "./store/redis-server.js";

describeRedis("a bot on redis killed with SIGKILL while 20 jobs wait their turn", (redis) => {
  it("redis: after the restart each waiting job starts once, in its person's order", async () => {
    await killWithAQueue(redis().url);
  }, 240_000);
});
