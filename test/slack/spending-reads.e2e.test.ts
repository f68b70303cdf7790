import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeSlack } from "../fakes/slack/index.js";
import { sqlite } from "../store/backends.js";
import { SlackWorld } from "./harness.js";

/**
 * Reading spending costs no writes: opening the App Home over and over, and `/media usage`, show
 * the person's spending and budgets from the account read at most once every 30 s (any reading
 * of the key will do: a creation answer's figures too) and from the period's sums, and leave the
 * store's spending records exactly as they were.
 */

let world: SlackWorld;
beforeAll(async () => {
  world = await SlackWorld.start(await startFakeSlack());
});
afterAll(async () => {
  await world?.close();
  await world?.fake.close();
});

/** Everything the store keeps of spending, read from its sqlite file with a connection of the test's own. */
async function spendingOnDisk(): Promise<string> {
  const file = join(world.dir, "bot.sqlite");
  const tables = [
    "SELECT key, value FROM keyv WHERE key LIKE 'spend:%' ORDER BY key",
    "SELECT name, id, at FROM indexes WHERE name LIKE 'spend:%' ORDER BY name, id",
    "SELECT * FROM spend_tallies ORDER BY book, field",
    "SELECT * FROM spend_holds ORDER BY book, hold, field",
    "SELECT * FROM spend_costs ORDER BY book, command",
    "SELECT ledger, credits, counters, probe, at, id FROM spend_ledger ORDER BY ledger, id",
  ];
  const rows = [];
  for (const sql of tables) rows.push(await sqlite(file, sql));
  return JSON.stringify(rows);
}

const usageReads = () => world.emu.calls.filter((c) => c.method === "GET" && c.path === "/api/usage").length;

describe("the Home and /media usage, opened again and again", () => {
  it("make at most one GET /api/usage and write nothing of spending", async () => {
    const { fake } = world;
    const mia = fake.addUser("mia");
    await world.answer(`budget <@${mia.id}|mia> --jobs 10`, fake.users.admin.id);
    await world.job("image generate a kite for the Home", mia.id);
    const before = await spendingOnDisk();
    expect(before).toContain("everyone|jobs");
    const reads = usageReads();

    for (let n = 0; n < 10; n += 1) {
      const published = fake.calls.filter((c) => c.method === "views.publish").length;
      await fake.openHome(world.eventsUrl, mia.id);
      await world.until(() => fake.calls.filter((c) => c.method === "views.publish").length > published);
    }
    const home = JSON.stringify(fake.home(mia.id)?.blocks ?? []);
    // The Home shows her spending and her budget, from the sums.
    expect(home).toContain("1 job");
    expect(home).toContain("1 of 10 jobs");
    for (let n = 0; n < 5; n += 1) {
      const answer = await world.answer("usage", mia.id);
      expect(answer).toContain("Your own spending through the bot this period.");
    }

    expect(usageReads() - reads).toBeLessThanOrEqual(1);
    expect(await spendingOnDisk()).toBe(before);
  });
});
