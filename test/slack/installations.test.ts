import { randomUUID } from "node:crypto";
import { type Installation, webApi } from "@slack/bolt";
import { afterEach, beforeEach, expect, it } from "vitest";
import { SlackInstallations } from "../../src/slack/installations.js";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.js";
import { quiet } from "../fakes/slack/quiet-logger.js";
import { describeEachBackend } from "../store/backends.js";
import { silent } from "./harness.js";

/**
 * Renewing rotating tokens in the installation store, as replicas sharing one store do it: a
 * refresh token works once, so one replica renews a workspace's token while the others wait for
 * its result, and all of them go on with the new token.
 */

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startFakeSlack({ tokenRotation: { ttlS: 60 * 60 } });
});
afterEach(async () => {
  await fake.close();
});

/** An install in a new workspace, as Bolt's installer stores it: a token of one hour and its refresh token. */
async function installation(): Promise<Installation<"v2", false>> {
  const away = fake.addWorkspace("Away");
  fake.redirectUrls.push("http://127.0.0.1:1/slack/oauth_redirect");
  const consent = await fetch(
    `${fake.apiUrl}../oauth/v2/authorize?client_id=${fake.clientId}&scope=chat:write`,
    {
      redirect: "manual",
      headers: { cookie: `fake-slack-team=${away.id}` },
    },
  );
  const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
  const access = await new webApi.WebClient(undefined, {
    slackApiUrl: fake.apiUrl,
    logger: quiet,
  }).oauth.v2.access({
    client_id: fake.clientId,
    client_secret: fake.clientSecret,
    code,
  });
  return {
    team: { id: away.id, name: away.name },
    enterprise: undefined,
    isEnterpriseInstall: false,
    authVersion: "v2",
    appId: fake.appId,
    user: { id: away.userIds.admin, token: undefined, scopes: undefined },
    bot: {
      id: away.botId,
      userId: away.botUserId,
      token: access.access_token!,
      refreshToken: access.refresh_token!,
      expiresAt: Math.floor(Date.now() / 1000) + access.expires_in!,
      scopes: ["chat:write"],
    },
  };
}

describeEachBackend("renewing rotating Slack tokens", (ctx) => {
  it("renews a token within two hours of its end once for all replicas, which all go on with the new one", async () => {
    const replicas = await Promise.all(
      [0, 1, 2].map(async () => {
        const stores = await ctx.open();
        return new SlackInstallations(stores.installations, silent, {
          clientId: fake.clientId,
          clientSecret: fake.clientSecret,
          clientOptions: { slackApiUrl: fake.apiUrl, logger: quiet, retryConfig: { retries: 0 } },
          claims: stores.claims,
          owner: randomUUID(),
        });
      }),
    );
    const installed = await installation();
    // Tokens from now on live Slack's 12 hours.
    fake.rotateTokens();
    const teamId = installed.team!.id;
    await replicas[0]!.storeInstallation(installed);

    const fresh = await Promise.all(replicas.map((replica) => replica.fresh(teamId)));

    const renewals = fake.calls.filter(
      (c) => c.method === "oauth.v2.access" && c.args.grant_type === "refresh_token",
    );
    expect(renewals.map((c) => c.answered.ok)).toEqual([true]);
    const token = fake.botTokenOf(teamId);
    expect(token).not.toBe(installed.bot!.token);
    expect(fresh.map((i) => i?.bot?.token)).toEqual([token, token, token]);
    // Bolt reads the same for a request of that workspace.
    expect(
      (await replicas[2]!.fetchInstallation({ teamId, enterpriseId: undefined, isEnterpriseInstall: false }))
        .bot?.token,
    ).toBe(token);
    const raw = await ctx.readRaw("installations", `slack:${teamId}`);
    expect(raw).not.toContain(fresh[0]!.bot!.refreshToken);
  });

  it("renews a token Slack answered token_expired for, unless another replica has already", async () => {
    const stores = await ctx.open();
    const replica = new SlackInstallations(stores.installations, silent, {
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      clientOptions: { slackApiUrl: fake.apiUrl, logger: quiet, retryConfig: { retries: 0 } },
      claims: stores.claims,
      owner: randomUUID(),
    });
    fake.rotateTokens();
    const installed = await installation();
    const teamId = installed.team!.id;
    await replica.storeInstallation(installed);

    const renewed = await replica.renewed(teamId, installed.bot!.token);
    const again = await replica.renewed(teamId, installed.bot!.token);

    expect(renewed?.bot?.token).toBe(fake.botTokenOf(teamId));
    expect(again?.bot?.token).toBe(renewed?.bot?.token);
    expect(fake.calls.filter((c) => c.args.grant_type === "refresh_token")).toHaveLength(1);
  });
});
