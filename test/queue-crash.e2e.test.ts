import { describe, it } from "vitest";
import { killWithAQueue } from "./queue-crash.js";

describe("a bot killed with SIGKILL while 20 jobs wait their turn", () => {
  it("sqlite: after the restart each waiting job starts once, in its person's order", async () => {
    await killWithAQueue();
  }, 240_000);
});
