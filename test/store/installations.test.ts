import { expect, it } from "vitest";
import type { InstallationRef } from "../../src/store/index.js";
import { describeEachBackend } from "./backends.js";

const acme: InstallationRef = { platform: "slack", workspaceId: "T0ACME" };
const globex: InstallationRef = { platform: "slack", workspaceId: "T0GLOBEX" };
const TOKEN = "xoxb-111-222-acmeBotTokenValue";
const installation = { team: { id: "T0ACME", name: "Acme" }, bot: { token: TOKEN, userId: "U0BOT" } };

describeEachBackend("installations", (ctx) => {
  it("keeps an installation encrypted at rest and gives it back whole", async () => {
    const { installations } = await ctx.open();
    await installations.save(acme, installation);

    const raw = await ctx.readRaw("installations", "slack:T0ACME");
    expect(raw).toMatch(/"installation":"v1:[\w-]+:[\w-]+:[\w-]+"/);
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain("acmeBotTokenValue");
    expect(raw).not.toContain("Acme");

    expect(await installations.get(acme)).toEqual(installation);
    expect(await installations.get(globex)).toBeUndefined();
  });

  it("does not decrypt a record copied onto another workspace, nor with another SECRETS_KEY", async () => {
    const { installations } = await ctx.open();
    await installations.save(acme, installation);
    const raw = await ctx.readRaw("installations", "slack:T0ACME");
    await installations.save(globex, { team: { id: "T0GLOBEX" } });
    await ctx.writeRaw("installations", "slack:T0GLOBEX", raw ?? "");
    await expect(installations.get(globex)).rejects.toMatchObject({ code: "secrets.undecryptable" });

    const other = await ctx.open({ secretsKey: "8e".repeat(32) });
    await expect(other.installations.get(acme)).rejects.toMatchObject({ code: "secrets.undecryptable" });
  });

  it("forgets an installation, once", async () => {
    const { installations } = await ctx.open();
    await installations.save(acme, installation);
    expect(await installations.delete(acme)).toBe(true);
    expect(await installations.get(acme)).toBeUndefined();
    expect(await installations.delete(acme)).toBe(false);
  });

  it("stores nothing without SECRETS_KEY", async () => {
    const { installations } = await ctx.open({ secretsKey: undefined });
    await expect(installations.save(acme, installation)).rejects.toMatchObject({ code: "secrets.no_key" });
    expect(await ctx.readRaw("installations", "slack:T0ACME")).toBeUndefined();
  });
});
