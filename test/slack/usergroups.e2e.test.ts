import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budgetTarget } from "../../src/core/commands/budget.js";
import { startFakeSlack } from "../fakes/slack/index.js";
import { addUserGroup } from "../fakes/slack/state.js";
import { SlackWorld, type WorldOptions } from "./harness.js";

/**
 * Budgets for Slack user groups, through the real Bolt app against the fake Slack and the media
 * API emulator: the bot reads who is in which group (usergroups.list), a group's budget holds its
 * members together and no one else, and when Slack does not say who is in a group (usergroups.list
 * fails, or the app lacks usergroups:read) a start such a budget may bind is refused, never let
 * through unbudgeted.
 */

/** A bot and fake Slack per describe: budgets are per account and period, groups per workspace. */
function worldPerDescribe(options: WorldOptions = {}): () => SlackWorld {
  let world: SlackWorld | undefined;
  beforeAll(async () => {
    world = await SlackWorld.start(await startFakeSlack(), options);
  });
  afterAll(async () => {
    await world?.close();
    await world?.fake.close();
  });
  return () => world!;
}

const IMAGE = "/api/image/generate";

/** Runs an image generation as `user` and waits for its job message. */
async function image(world: SlackWorld, prompt: string, user: string): Promise<void> {
  const before = world.jobCount();
  await world.command(`image generate ${prompt}`, user);
  await world.jobMessage(before);
}

describe("a budget of 2 jobs for the user group @designers", () => {
  const world = worldPerDescribe();

  it("holds its two members together: the third image of the group is refused with 2 creation calls, and a person outside is not held back", async () => {
    const { fake } = world();
    const ann = fake.addUser("ann");
    const bob = fake.addUser("bob");
    const outsider = fake.addUser("outsider");
    addUserGroup(fake.workspace(fake.teamId), { id: "S1", handle: "designers", users: [ann.id, bob.id] });

    const saved = await world().answer("budget <!subteam^S1|@designers> --jobs 2", fake.users.admin.id);
    expect(saved).toContain("Budget saved");
    expect(saved).toContain("0 of 2 jobs (2 left)");

    await image(world(), "first kite", ann.id);
    await image(world(), "second kite", bob.id);
    expect(world().creations(IMAGE)).toHaveLength(2);

    const thirdKite = () => world().answer("image generate third kite", ann.id);
    const refused = await thirdKite();
    expect(refused).toContain(
      "This would go over the budget of a user group you are in: 2 of 2 jobs used this period, 0 left.",
    );
    expect(refused).toContain("Nothing was started or charged.");
    // The same start again is the barrier: once it is refused too, a late creation call of the
    // first would have arrived.
    expect(await thirdKite()).toContain("This would go over the budget of a user group you are in");
    expect(world().creations(IMAGE)).toHaveLength(2);
    expect(world().jobCount()).toBe(2);

    // Not in the group: the budget does not bind them.
    await image(world(), "outside kite", outsider.id);
    expect(world().creations(IMAGE)).toHaveLength(3);
    // One usergroups.list for all of it (kept for minutes), asking for the members.
    const lists = fake.calls.filter((c) => c.method === "usergroups.list");
    expect(lists).toHaveLength(1);
    expect(lists[0]?.args.include_users).toBe("true");
  });

  it("takes group:ID as the group, and answers a typed @group (plain text, no id) with how to name it", async () => {
    const { fake } = world();
    const admin = fake.users.admin.id;
    const typed = await world().answer("budget @designers --jobs 5", admin);
    expect(typed).toContain("For a Slack user group, use group:ID (the ID is in the group's profile).");

    const saved = await world().answer("budget group:S1 --jobs 3", admin);
    expect(saved).toContain("Budget saved");
    // The same budget as the mention's, raised: one budget for the group, 2 of 3 used.
    expect(saved).toContain("2 of 3 jobs (1 left)");
    expect(saved).not.toContain("(0 left)");
  });
});

describe("a user group's budget when Slack does not say who is in the group", () => {
  const world = worldPerDescribe();

  it("refuses a member's start, saying to try again, with no creation call; once Slack answers the budget binds as before", async () => {
    const { fake } = world();
    const ann = fake.addUser("ann");
    const outsider = fake.addUser("outsider");
    addUserGroup(fake.workspace(fake.teamId), { id: "S1", handle: "designers", users: [ann.id] });
    const lists = () => fake.calls.filter((c) => c.method === "usergroups.list");
    // Slack fails usergroups.list from the start: for the admin's gesture and the budget's names
    // (the group is then shown by its id), nothing kept of it.
    fake.fail({ method: "usergroups.list", error: "internal_error", times: 2 });
    const saved = await world().answer("budget <!subteam^S1|@designers> --jobs 1", fake.users.admin.id);
    expect(saved).toContain("User group @S1");
    // And for Ann's gesture, and again when the budget check asks once more.
    const asked = lists().length;
    fake.fail({ method: "usergroups.list", error: "internal_error", times: 2 });
    const refused = await world().answer("image generate a kite while Slack is down", ann.id);
    expect(refused).toContain("Try again in a moment");
    expect(refused).toContain(
      "Your user groups could not be read from Slack just now, and a budget of one may apply to you.",
    );
    expect(refused).toContain("Nothing was started or charged.");
    expect(
      lists()
        .slice(asked)
        .map((c) => c.answered),
    ).toEqual([
      { ok: false, error: "internal_error" },
      { ok: false, error: "internal_error" },
    ]);

    // Slack answers again: the group's budget binds its member, and no one else. Ann's next start
    // takes the same path, so once it made its call, a late one of the refused start would have
    // come before it.
    await image(world(), "first kite", ann.id);
    expect(
      world()
        .creations(IMAGE)
        .map((c) => (c.json as { prompt: string }).prompt),
    ).toEqual(["first kite"]);
    const over = await world().answer("image generate second kite", ann.id);
    expect(over).toContain("This would go over the budget of a user group you are in: 1 of 1 jobs");
    await image(world(), "outside kite", outsider.id);
    expect(world().creations(IMAGE)).toHaveLength(2);
  });
});

describe("a workspace that did not grant usergroups:read", () => {
  const world = worldPerDescribe();

  it("refuses a start a user group's budget may bind, rather than let the budget bind no one; without such a budget starts go on", async () => {
    const { fake } = world();
    const workspace = fake.workspace(fake.teamId);
    // Installed before the manifest asked for usergroups:read.
    workspace.grantedScopes = ["commands", "chat:write", "chat:write.public", "channels:join", "users:read"];
    const bo = fake.addUser("bo");
    addUserGroup(workspace, { id: "S2", handle: "writers", users: [bo.id] });
    await image(world(), "a kite before any group budget", bo.id);
    expect(world().creations(IMAGE)).toHaveLength(1);

    await world().answer("budget group:S2 --jobs 5", fake.users.admin.id);
    const withoutScope = () => world().answer("image generate a kite without the scope", bo.id);
    const refused = await withoutScope();
    expect(refused).toContain("Your user groups could not be read from Slack just now");
    expect(refused).toContain("if this keeps happening, tell an admin");
    // The same start again is the barrier: once it is refused too, a late creation call of the
    // first would have arrived.
    expect(await withoutScope()).toContain("Your user groups could not be read from Slack just now");
    expect(world().creations(IMAGE)).toHaveLength(1);
    const lists = fake.calls.filter((c) => c.method === "usergroups.list");
    expect(new Set(lists.map((c) => c.answered.error))).toEqual(new Set(["missing_scope"]));
  });
});

describe("a burst of commands from a user group", () => {
  // The bot's own HTTP server holds the work behind the acks while the burst arrives (acks.e2e).
  const world = worldPerDescribe({ intake: { quietMs: 300, maxHoldMs: 10_000 } });

  it("asks Slack for the groups after the acks, once for the whole burst", async () => {
    const { fake } = world();
    const team = Array.from({ length: 8 }, (_, n) => fake.addUser(`designer${n}`).id);
    addUserGroup(fake.workspace(fake.teamId), { id: "S1", handle: "designers", users: team });
    const lists = () => fake.calls.filter((c) => c.method === "usergroups.list").length;

    const atEachAck = await Promise.all(
      team.map(async (user, n) => {
        await world().command(`image generate a kite number ${n}`, user);
        return lists();
      }),
    );
    expect(atEachAck).toEqual(team.map(() => 0));
    await world().until(() => world().creations(IMAGE).length === team.length, 15_000);
    expect(lists()).toBe(1);
  });
});

describe("budgetTarget with Slack user groups", () => {
  it("reads a group mention, with or without its handle, and group:ID as a role budget", () => {
    expect(budgetTarget("<!subteam^S0614TZR7|@designers>", "C1", "slack")).toEqual({
      scope: "role",
      id: "S0614TZR7",
    });
    expect(budgetTarget("<!subteam^S0614TZR7>", "C1", "slack")).toEqual({ scope: "role", id: "S0614TZR7" });
    expect(budgetTarget(" group:S0614TZR7 ", "C1", "slack")).toEqual({ scope: "role", id: "S0614TZR7" });
  });

  it("refuses other text, pointing a typed @group to group:ID on Slack only", () => {
    expect(() => budgetTarget("designers", "C1", "slack")).toThrow(/role:ID, group:ID, channel:ID/);
    expect(() => budgetTarget("@designers", "C1", "slack")).toThrow(/use group:ID/);
    expect(() => budgetTarget("@designers", "C1", "discord")).toThrow(/^for takes .*"@designers"\.$/);
    expect(() => budgetTarget("<!subteam^>", "C1", "slack")).toThrow(/for takes/);
  });
});
