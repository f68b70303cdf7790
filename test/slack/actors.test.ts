import { webApi } from "@slack/bolt";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Actors } from "../../src/slack/actors.js";
import { singleWorkspace } from "../../src/slack/workspaces.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { addUserGroup, type UserGroup } from "../fakes/slack/state.js";

/**
 * Actors against the fake Slack's Web API through a real WebClient: admins from users.info, user
 * groups (roleIds) from one usergroups.list per workspace, kept a while, shared by a burst, and
 * not kept when Slack did not answer: then the last answer of the past minutes stands in, or the
 * groups are not known (rolesUnknown), which budgets of groups refuse rather than let pass.
 */

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

const workspace = () => fake.workspace(fake.teamId);

beforeEach(() => {
  workspace().userGroups.splice(0);
  delete workspace().grantedScopes;
});

function actors(ttlMs = 60_000) {
  const warnings: { msg: string; teamId?: string }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const client = new webApi.WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
  return { actors: new Actors(singleWorkspace(client), logger, ttlMs), warnings };
}

const listCalls = () => fake.calls.filter((c) => c.method === "usergroups.list");

/** Moves the clock the kept answers are aged by; only Date is faked, so Slack's calls still run. */
const age = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe("Actors.of", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives the user groups a user is in as roleIds, from usergroups.list with include_users", async () => {
    const ann = fake.addUser("ann");
    const bob = fake.addUser("bob");
    const cy = fake.addUser("cy");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id, bob.id] });
    addUserGroup(workspace(), { id: "S0WRITER1", handle: "writers", users: [ann.id] });
    addUserGroup(workspace(), { id: "S0OLDTEAM", handle: "old", users: [bob.id], disabled: true });
    const { actors: a } = actors();
    const calls = listCalls().length;

    expect((await a.of(fake.teamId, ann.id)).roleIds.sort()).toEqual(["S0DESIGN1", "S0WRITER1"]);
    expect((await a.of(fake.teamId, bob.id)).roleIds).toEqual(["S0DESIGN1"]);
    expect(await a.of(fake.teamId, cy.id)).toEqual({
      platform: "slack",
      tenantId: fake.teamId,
      userId: cy.id,
      isAdmin: false,
      roleIds: [],
      locale: "en-US",
    });
    expect((await a.of(fake.teamId, fake.users.admin.id)).isAdmin).toBe(true);
    // One call for the workspace, asking for the members.
    expect(listCalls().slice(calls)).toHaveLength(1);
    expect(listCalls().at(-1)?.args.include_users).toBe("true");
    expect(listCalls().at(-1)?.answered).toEqual({ ok: true });
  });

  it("asks once for a burst of a whole workspace, and again once the answer is old", async () => {
    const people = ["p1", "p2", "p3", "p4", "p5"].map((name) => fake.addUser(name));
    const group: UserGroup = addUserGroup(workspace(), {
      id: "S0BURST01",
      handle: "burst",
      users: [people[0]!.id],
    });
    const { actors: a } = actors(200);
    const calls = listCalls().length;

    const burst = await Promise.all(people.map((p) => a.of(fake.teamId, p.id)));
    expect(burst.map((actor) => actor.roleIds)).toEqual([["S0BURST01"], [], [], [], []]);
    expect(listCalls().length - calls).toBe(1);

    // Joining a group counts once the kept answer is old.
    group.users.push(people[1]!.id);
    expect((await a.of(fake.teamId, people[1]!.id)).roleIds).toEqual([]);
    age(250);
    expect((await a.of(fake.teamId, people[1]!.id)).roleIds).toEqual(["S0BURST01"]);
    expect(listCalls().length - calls).toBe(2);
  });

  it("says the groups are not known when Slack does not answer and nothing was read before, logs it once for a burst, and asks again on the next gesture", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id] });
    const { actors: a, warnings } = actors();
    fake.fail({ method: "usergroups.list", error: "internal_error" });

    const burst = await Promise.all([a.of(fake.teamId, ann.id), a.of(fake.teamId, ann.id)]);
    expect(burst.map((actor) => [actor.roleIds, actor.rolesUnknown])).toEqual([
      [[], true],
      [[], true],
    ]);
    expect(warnings.filter((w) => w.msg.startsWith("usergroups.list failed"))).toHaveLength(1);

    const next = await a.of(fake.teamId, ann.id);
    expect(next.roleIds).toEqual(["S0DESIGN1"]);
    expect(next).not.toHaveProperty("rolesUnknown");
  });

  it("uses Slack's last answer of the past minutes when it does not answer now, and asks again on the next gesture", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id] });
    const { actors: a, warnings } = actors(100);
    expect((await a.of(fake.teamId, ann.id)).roleIds).toEqual(["S0DESIGN1"]);
    age(150);
    fake.fail({ method: "usergroups.list", error: "ratelimited" });
    const stale = await a.of(fake.teamId, ann.id);
    expect([stale.roleIds, stale.rolesUnknown]).toEqual([["S0DESIGN1"], undefined]);
    expect(warnings.filter((w) => w.msg === "usergroups.list failed; using its last answer")).toHaveLength(1);
    // Not kept in place of an answer: the next gesture asks Slack.
    const calls = listCalls().length;
    await a.of(fake.teamId, ann.id);
    expect(listCalls().length - calls).toBe(1);
  });

  it("answers rolesOf from Slack, and throws when Slack cannot say", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id] });
    const { actors: a } = actors();
    fake.fail({ method: "usergroups.list", error: "internal_error" });
    await expect(a.rolesOf(fake.teamId, ann.id)).rejects.toThrow(/could not be read/);
    expect(await a.rolesOf(fake.teamId, ann.id)).toEqual(["S0DESIGN1"]);
    expect(await a.handles(fake.teamId)).toEqual(new Map([["S0DESIGN1", "designers"]]));
  });

  it("takes missing_scope as groups not known, logged once per workspace, and keeps that answer a while", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id] });
    workspace().grantedScopes = ["commands", "chat:write", "users:read"];
    const { actors: a, warnings } = actors(100);
    const calls = listCalls().length;

    expect(await a.of(fake.teamId, ann.id)).toMatchObject({ roleIds: [], rolesUnknown: true });
    expect(listCalls().at(-1)?.answered).toEqual({ ok: false, error: "missing_scope" });
    expect((await a.of(fake.teamId, ann.id)).roleIds).toEqual([]);
    expect(listCalls().length - calls).toBe(1);
    age(150);
    // Old: asked again, still missing, not logged again.
    expect((await a.of(fake.teamId, ann.id)).roleIds).toEqual([]);
    expect(listCalls().length - calls).toBe(2);
    const told = warnings.filter((w) => w.msg.includes("usergroups:read"));
    expect(told).toHaveLength(1);
    expect(told[0]?.teamId).toBe(fake.teamId);
    // Admins still come from users.info.
    expect((await a.of(fake.teamId, fake.users.admin.id)).isAdmin).toBe(true);

    // Reinstalled with the scope: the groups count once the kept answer is old.
    delete workspace().grantedScopes;
    age(150);
    expect((await a.of(fake.teamId, ann.id)).roleIds).toEqual(["S0DESIGN1"]);
  });

  it("gives the language the person reads Slack in, from the same users.info as their role, kept a while", async () => {
    const yuki = fake.addUser("yuki");
    yuki.locale = "ja-JP";
    const { actors: a } = actors();
    const infos = () => fake.calls.filter((c) => c.method === "users.info" && c.args.user === yuki.id);

    expect(await a.of(fake.teamId, yuki.id)).toMatchObject({ locale: "ja-JP", isAdmin: false });
    expect((await a.of(fake.teamId, yuki.id)).locale).toBe("ja-JP");
    expect(infos()).toHaveLength(1);
    // Slack says the locale only when asked for it (the fake leaves it out otherwise).
    expect(String(infos()[0]?.args.include_locale)).toBe("true");
  });

  it("quick makes no call and knows no groups", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", users: [ann.id] });
    const { actors: a } = actors();
    const calls = fake.calls.length;
    expect(a.quick(fake.teamId, ann.id).roleIds).toEqual([]);
    expect(fake.calls.length).toBe(calls);
  });
});

describe("the fake's usergroups.list", () => {
  it("answers as Slack does: users only with include_users, disabled groups only on request, bot tokens only", async () => {
    const ann = fake.addUser("ann");
    addUserGroup(workspace(), { id: "S0DESIGN1", handle: "designers", name: "Designers", users: [ann.id] });
    addUserGroup(workspace(), { id: "S0OLDTEAM", handle: "old", users: [], disabled: true });
    type Answer = { ok: boolean; usergroups: ({ id: string; users?: string[] } & Record<string, unknown>)[] };
    const call = async (token: string, args: Record<string, string>): Promise<Answer> =>
      (
        await fetch(`${fake.apiUrl}usergroups.list`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(args).toString(),
        })
      ).json() as Promise<Answer>;

    const plain = await call(fake.botToken, {});
    expect(plain.ok).toBe(true);
    expect(plain.usergroups).toHaveLength(1);
    expect(plain.usergroups[0]).toMatchObject({
      id: "S0DESIGN1",
      team_id: fake.teamId,
      handle: "designers",
      name: "Designers",
      is_usergroup: true,
      user_count: 1,
    });
    expect(plain.usergroups[0]).not.toHaveProperty("users");
    expect((await call(fake.botToken, { include_users: "true" })).usergroups[0]?.users).toEqual([ann.id]);
    expect((await call(fake.botToken, { include_disabled: "true" })).usergroups).toHaveLength(2);
    expect(await call(fake.appToken, {})).toMatchObject({ ok: false, error: "not_allowed_token_type" });
    expect(await call("xoxb-unknown", {})).toMatchObject({ ok: false, error: "invalid_auth" });
    workspace().grantedScopes = ["chat:write", "users:read"];
    expect(await call(fake.botToken, {})).toEqual({
      ok: false,
      error: "missing_scope",
      needed: "usergroups:read",
      provided: "chat:write,users:read",
    });
    // Another workspace's groups are not this token's.
    const other = fake.addWorkspace("Other");
    addUserGroup(other, { id: "S0ELSEWHR", handle: "else", users: [] });
    delete workspace().grantedScopes;
    expect((await call(fake.botToken, {})).usergroups.map((g) => g.id)).toEqual(["S0DESIGN1"]);
  });
});
