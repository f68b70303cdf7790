import { setTimeout as sleep } from "node:timers/promises";
import {
  type InstallationStore as BoltInstallationStore,
  type Installation,
  type InstallationQuery,
  webApi,
} from "@slack/bolt";
import type { WebClientOptions } from "@slack/web-api";
import { BotError, UndeliverableError } from "../core/base/errors.js";
import type { Logger } from "../core/base/log.js";
import { addSecret } from "../core/base/redact.js";
import { msg } from "../core/i18n/msg.js";
import { type Claims, type InstallationStore, isStoreOutage } from "../store/index.js";
import { toJson } from "../store/records.js";
import { slackErrorCode } from "./error-code.js";

/** What a workspace's people see once its installation is gone (uninstalled, tokens revoked). */
export const REMOVED_FROM_WORKSPACE = msg("platform.slack.removed");

/** An org-wide (Enterprise Grid) install: the bot's tenants are workspaces, so it is refused (oauth.ts). */
export class OrgInstallError extends BotError {
  readonly code = "slack.org_install";
  constructor() {
    super(
      "This app installs into one workspace at a time: an org-wide install is not supported. Install it from each workspace instead.",
    );
  }
}

/** No installation for the workspace: Bolt answers nothing, the adapter gives up delivering there. */
export class NotInstalledError extends UndeliverableError {
  constructor(teamId: string) {
    super(REMOVED_FROM_WORKSPACE, { message: `Slack: no installation for workspace ${teamId}` });
  }
}

/**
 * With token rotation on (it cannot be turned off again once on), Slack's access tokens live 12
 * hours and a refresh token renews them through oauth.v2.access. A token is renewed once it has
 * less than this left: Bolt's InstallProvider renews within 2 hours too, so the installation it
 * reads here is always fresh, and only this class ever renews.
 */
export const RENEW_WITHIN_MS = 2 * 60 * 60_000;

/** What renewing a rotating token needs: the app's credentials and a claim for the fleet. */
export interface Renewal {
  clientId: string;
  clientSecret: string;
  /** For oauth.v2.access (SLACK_API_URL). */
  clientOptions: WebClientOptions;
  /** One replica renews a workspace's token at a time: a refresh token works once. */
  claims: Claims;
  owner: string;
}

/** How long a replica waits for another one's renewal before it goes on with what it has. */
const RENEWAL_WAIT = { tries: 20, everyMs: 250 };
const RENEWAL_CLAIM_MS = 30_000;

const expiresWithin = (installation: Installation, ms: number, now = Date.now()) => {
  const expiresAt = installation.bot?.expiresAt;
  return Boolean(installation.bot?.refreshToken) && expiresAt !== undefined && expiresAt * 1000 - now <= ms;
};

/**
 * Bolt's InstallationStore on the bot's store (src/store/installations.ts): what oauth.v2.access
 * handed over, kept whole and encrypted, one record per workspace (the refresh token of a rotating
 * one too). Every token read or written is registered with the log redaction, besides the xoxb-
 * shape it already knows. Rotating tokens are renewed here, for Bolt's listeners and for the
 * adapter's deliveries alike (see RENEW_WITHIN_MS).
 */
export class SlackInstallations implements BoltInstallationStore {
  /**
   * Each workspace's installation as last read, used only while the store is away: Bolt reads
   * it for every request, and without it a store outage would leave a workspace's commands
   * unanswered instead of told to try again in a moment.
   */
  private readonly lastRead = new Map<string, Installation>();
  /** Renewals under way in this process, by workspace. */
  private readonly renewing = new Map<string, Promise<Installation | undefined>>();

  constructor(
    private readonly store: InstallationStore,
    private readonly logger: Logger,
    private readonly renewal?: Renewal,
  ) {}

  async storeInstallation<V extends "v1" | "v2">(installation: Installation<V, boolean>): Promise<void> {
    const teamId = installation.team?.id;
    // oauth.ts undoes org-wide installs before they get here; none is ever stored.
    if (installation.isEnterpriseInstall || !teamId) throw new OrgInstallError();
    secretsOf(installation);
    await this.store.save(ref(teamId), toJson(installation));
    this.lastRead.set(teamId, installation as Installation);
    this.logger.info({ teamId, teamName: installation.team?.name }, "Slack: installed in a workspace");
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const installation = query.teamId ? await this.fresh(query.teamId) : undefined;
    // Bolt turns the throw into "authorization failed" and answers nothing.
    if (!installation) throw new NotInstalledError(query.teamId ?? query.enterpriseId ?? "(none)");
    return installation;
  }

  /** The workspace's installation, or undefined when the app is not (or no longer) installed there. */
  async get(teamId: string): Promise<Installation | undefined> {
    let stored: Installation | undefined;
    try {
      stored = (await this.store.get(ref(teamId))) as Installation | undefined;
    } catch (error) {
      const known = isStoreOutage(error) ? this.lastRead.get(teamId) : undefined;
      if (!known) throw error;
      return known;
    }
    if (stored) {
      secretsOf(stored);
      this.lastRead.set(teamId, stored);
    } else this.lastRead.delete(teamId);
    return stored;
  }

  /** The workspace's installation with a bot token good for a while yet (renewed first if need be). */
  async fresh(teamId: string): Promise<Installation | undefined> {
    const installation = await this.get(teamId);
    if (!installation || !expiresWithin(installation, RENEW_WITHIN_MS)) return installation;
    return this.renew(teamId, installation.bot?.token);
  }

  /**
   * Slack answered token_expired to `stale`: the installation with the workspace's next token,
   * renewed now unless another replica did it already. Undefined when the app is not installed.
   */
  async renewed(teamId: string, stale: string | undefined): Promise<Installation | undefined> {
    const installation = await this.get(teamId);
    if (!installation || (installation.bot?.token !== stale && !expiresWithin(installation, 0)))
      return installation;
    return this.renew(teamId, stale);
  }

  private renew(teamId: string, stale: string | undefined): Promise<Installation | undefined> {
    const under = this.renewing.get(teamId);
    if (under) return under;
    const renewal = this.renewOnce(teamId, stale).finally(() => this.renewing.delete(teamId));
    this.renewing.set(teamId, renewal);
    return renewal;
  }

  /** Trades the refresh token for the next pair under the fleet's claim, and stores them. */
  private async renewOnce(teamId: string, stale: string | undefined): Promise<Installation | undefined> {
    const renewal = this.renewal;
    if (!renewal) return this.get(teamId);
    const key = `slack-token:${teamId}`;
    const done = (installation: Installation | undefined) =>
      installation && installation.bot?.token !== stale && !expiresWithin(installation, RENEW_WITHIN_MS);
    for (let tries = 0; !(await renewal.claims.acquire(key, renewal.owner, RENEWAL_CLAIM_MS)); tries++) {
      // Another replica renews it: its result is in the store soon.
      await sleep(RENEWAL_WAIT.everyMs);
      const now = await this.get(teamId);
      if (done(now) || tries >= RENEWAL_WAIT.tries) return now;
    }
    try {
      const current = await this.get(teamId);
      const refreshToken = current?.bot?.refreshToken;
      if (!current?.bot || !refreshToken || done(current)) return current;
      const answer = await new webApi.WebClient(undefined, renewal.clientOptions).oauth.v2
        .access({
          client_id: renewal.clientId,
          client_secret: renewal.clientSecret,
          grant_type: "refresh_token",
          refresh_token: refreshToken,
        })
        .catch((error: unknown) => {
          // Used or revoked: the workspace's calls get Slack's refusal, and the app must be reinstalled.
          if (slackErrorCode(error) !== "invalid_refresh_token") throw error;
          this.logger.warn({ teamId }, "Slack: the workspace's refresh token was refused");
          return undefined;
        });
      if (!answer?.access_token || !answer.refresh_token || answer.expires_in === undefined) return current;
      const renewed: Installation = {
        ...current,
        bot: {
          ...current.bot,
          token: answer.access_token,
          refreshToken: answer.refresh_token,
          expiresAt: Math.floor(Date.now() / 1000) + answer.expires_in,
        },
      };
      secretsOf(renewed);
      await this.store.save(ref(teamId), toJson(renewed));
      this.lastRead.set(teamId, renewed);
      this.logger.info({ teamId, expiresAt: renewed.bot?.expiresAt }, "Slack: renewed the workspace's token");
      return renewed;
    } finally {
      await renewal.claims.release(key, renewal.owner).catch(() => false);
    }
  }

  /** True when there was an installation to remove. */
  async remove(teamId: string): Promise<boolean> {
    this.lastRead.delete(teamId);
    const removed = await this.store.delete(ref(teamId));
    if (removed) this.logger.info({ teamId }, "Slack: installation removed");
    return removed;
  }
}

const ref = (teamId: string) => ({ platform: "slack" as const, workspaceId: teamId });

function secretsOf(installation: Installation): void {
  for (const secret of [
    installation.bot?.token,
    installation.bot?.refreshToken,
    installation.user?.token,
    installation.user?.refreshToken,
  ])
    addSecret(secret);
}
