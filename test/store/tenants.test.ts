import { expect, it } from "vitest";
import type { TenantRef } from "../../src/store/index.js";
import { capturingLogger, describeEachBackend } from "./backends.js";

const guild: TenantRef = { platform: "discord", tenantId: "111111111111111111" };
const team: TenantRef = { platform: "slack", tenantId: "T0001" };
const API_KEY = "mk_live_9f8e7d6c5b4a_TENANT_SECRET";

describeEachBackend("tenants", (ctx) => {
  it("answers defaults for a tenant never set up", async () => {
    const { tenants } = await ctx.open();
    expect(await tenants.get(guild)).toEqual({
      allowedRoleIds: [],
      allowedChannelIds: [],
      adminUserIds: [],
      defaults: {},
      alertChannelId: null,
      alertAt: [0.2, 0.05],
      presets: [],
      privateResults: "allowed",
      runningLimit: null,
      queueLimit: null,
      tenantRunningLimit: null,
      hasApiKey: false,
      updatedAt: null,
    });
    expect(await tenants.getApiKey(guild)).toBeUndefined();
  });

  it("keeps the running limit, the queue's length and the tenant's limit an admin set, and null clears one", async () => {
    const { tenants } = await ctx.open();
    await tenants.update(guild, { runningLimit: 2, queueLimit: 5, tenantRunningLimit: 20 });
    await tenants.update(guild, { allowedRoleIds: ["r1"] });
    expect(await tenants.get(guild)).toMatchObject({
      runningLimit: 2,
      queueLimit: 5,
      tenantRunningLimit: 20,
    });
    await tenants.update(guild, { tenantRunningLimit: null });
    expect(await tenants.get(guild)).toMatchObject({
      runningLimit: 2,
      queueLimit: 5,
      tenantRunningLimit: null,
    });
  });

  it("stores the API key encrypted and gives it back only through getApiKey", async () => {
    const { tenants } = await ctx.open();
    const settings = await tenants.update(guild, { apiKey: API_KEY, allowedRoleIds: ["r1"] });
    expect(settings).toMatchObject({ hasApiKey: true, allowedRoleIds: ["r1"] });
    expect(JSON.stringify(settings)).not.toContain(API_KEY);

    const raw = await ctx.readRaw("tenants", "discord:111111111111111111");
    expect(raw).toMatch(/"apiKey":"v1:[\w-]+:[\w-]+:[\w-]+"/);
    expect(raw).not.toContain(API_KEY);
    expect(raw).not.toContain(Buffer.from(API_KEY).toString("base64").slice(0, 12));

    expect(await tenants.getApiKey(guild)).toBe(API_KEY);
    expect(await tenants.getApiKey(team)).toBeUndefined();
  });

  it("changes only the fields given, and removes the key on null", async () => {
    const { tenants } = await ctx.open();
    await tenants.update(team, { apiKey: API_KEY, defaults: { aspect_ratio: "16:9", seed: 7 } });
    const changed = await tenants.update(team, { allowedChannelIds: ["C1", "C2"] });
    expect(changed).toMatchObject({
      hasApiKey: true,
      defaults: { aspect_ratio: "16:9", seed: 7 },
      allowedChannelIds: ["C1", "C2"],
    });
    expect(await tenants.getApiKey(team)).toBe(API_KEY);
    expect(await tenants.update(team, { apiKey: null })).toMatchObject({ hasApiKey: false });
    expect(await tenants.getApiKey(team)).toBeUndefined();
  });

  it("keeps concurrent edits of two admins on two connections", async () => {
    const [one, two] = [await ctx.open(), await ctx.open()];
    await Promise.all([
      one.tenants.update(guild, { allowedRoleIds: ["r1"] }),
      two.tenants.update(guild, { allowedChannelIds: ["c1"] }),
      one.tenants.update(guild, { defaults: { aspect_ratio: "1:1" } }),
    ]);
    expect(await two.tenants.get(guild)).toMatchObject({
      allowedRoleIds: ["r1"],
      allowedChannelIds: ["c1"],
      defaults: { aspect_ratio: "1:1" },
    });
  });

  it("fails with a typed error under another SECRETS_KEY, and without one", async () => {
    const first = await ctx.open();
    await first.tenants.update(guild, { apiKey: API_KEY, allowedRoleIds: ["r1"] });
    await first.close();

    const { logger, lines } = capturingLogger("warn");
    const rotated = await ctx.open({
      secretsKey: "a passphrase, not the key the value was written with",
      logger,
    });
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringContaining("derived from it as a passphrase"),
    ]);
    await expect(rotated.tenants.getApiKey(guild)).rejects.toMatchObject({ code: "secrets.undecryptable" });
    expect((await rotated.tenants.get(guild)).allowedRoleIds).toEqual(["r1"]);

    const keyless = await ctx.open({ secretsKey: undefined });
    await expect(keyless.tenants.getApiKey(guild)).rejects.toMatchObject({ code: "secrets.no_key" });
    await expect(keyless.tenants.update(team, { apiKey: API_KEY })).rejects.toMatchObject({
      code: "secrets.no_key",
    });
    expect(await keyless.tenants.update(team, { allowedRoleIds: ["r2"] })).toMatchObject({
      allowedRoleIds: ["r2"],
    });
  });

  it("does not decrypt a key copied onto another tenant", async () => {
    const { tenants } = await ctx.open();
    await tenants.update(guild, { apiKey: API_KEY });
    await tenants.update(team, { allowedRoleIds: [] });
    await ctx.writeRaw(
      "tenants",
      "slack:T0001",
      (await ctx.readRaw("tenants", "discord:111111111111111111"))!,
    );
    await expect(tenants.getApiKey(team)).rejects.toMatchObject({ code: "secrets.undecryptable" });
  });

  it("reports a corrupt record instead of reading it as 'no restrictions'", async () => {
    const { tenants, keyv } = await ctx.open();
    await keyv("tenants").set("discord:111111111111111111", { allowedRoleIds: "everyone" });
    await expect(tenants.get(guild)).rejects.toMatchObject({
      code: "store.corrupt",
      details: { namespace: "tenants", key: "discord:111111111111111111" },
    });
  });

  it("loads a record written before spending alerts existed, with alerts off, and keeps it on the next change", async () => {
    const { tenants, keyv } = await ctx.open();
    await keyv("tenants").set("discord:111111111111111111", {
      apiKey: null,
      allowedRoleIds: ["r1"],
      allowedChannelIds: [],
      adminUserIds: [],
      defaults: { aspect_ratio: "16:9" },
      updatedAt: 1,
    });
    expect(await tenants.get(guild)).toMatchObject({
      allowedRoleIds: ["r1"],
      alertChannelId: null,
      alertAt: [0.2, 0.05],
    });
    const saved = await tenants.update(guild, { alertChannelId: "C9", alertAt: [0.5] });
    expect(saved).toMatchObject({
      allowedRoleIds: ["r1"],
      defaults: { aspect_ratio: "16:9" },
      alertChannelId: "C9",
      alertAt: [0.5],
    });
  });

  it("loads a record written before presets existed, and changes its presets under the record's claim", async () => {
    const { tenants, keyv } = await ctx.open();
    await keyv("tenants").set("discord:111111111111111111", {
      apiKey: null,
      allowedRoleIds: [],
      allowedChannelIds: [],
      adminUserIds: ["u1"],
      defaults: { aspect_ratio: "16:9" },
      alertChannelId: null,
      alertAt: [0.2],
      updatedAt: 1,
    });
    expect(await tenants.get(guild)).toMatchObject({ presets: [], privateResults: "allowed" });
    const brand = { name: "Brand", values: { aspect_ratio: "1:1" }, from: null, createdAt: 2 };
    // Two admins publishing at once: each change sees the other's.
    await Promise.all([
      tenants.update(guild, { presets: (current) => [...current, brand] }),
      tenants.update(guild, { presets: (current) => [...current, { ...brand, name: "Night" }] }),
    ]);
    const saved = await tenants.get(guild);
    expect(saved.presets.map((p) => p.name).sort()).toEqual(["Brand", "Night"]);
    expect(saved).toMatchObject({ adminUserIds: ["u1"], defaults: { aspect_ratio: "16:9" }, alertAt: [0.2] });
  });
});
