import type { Installation } from "@slack/bolt";
import { webApi } from "@slack/bolt";
import type { WebClient, WebClientOptions } from "@slack/web-api";
import { NotInstalledError, RENEW_WITHIN_MS, type SlackInstallations } from "./installations.js";

/**
 * Which Web API client speaks for a workspace. With SLACK_BOT_TOKEN there is one workspace and
 * one client; with OAuth each workspace has the token of its own installation, looked up by the
 * team id every conversation and message the adapter hands out carries (`data.team`), so a job
 * delivered after a restart, or by another replica, still posts with its own workspace's token.
 */
export interface Workspaces {
  /**
   * True when the app reaches its workspaces through OAuth: distributed outside the Slack
   * Marketplace as far as the bot knows, so its history reads are Tier 1 (limits.ts).
   */
  readonly distributed: boolean;
  /** The client with `teamId`'s bot token; NotInstalledError (undeliverable) where the app is not installed. */
  client(teamId: string | undefined): Promise<WebClient>;
  /**
   * Slack refused `token` (expired, or revoked): the client with the workspace's next token (a
   * rotating token renewed, a reinstall, another replica's renewal), or undefined when there is
   * none. What was kept of the workspace is dropped either way.
   */
  renew(teamId: string, token: string | undefined, why: "expired" | "dead"): Promise<WebClient | undefined>;
  /** Drops what is kept for a workspace: uninstalled, or its token refused. */
  forget(teamId: string): void;
}

/** SLACK_BOT_TOKEN: one workspace, one token, which only the operator can replace. */
export function singleWorkspace(client: WebClient): Workspaces {
  return { distributed: false, client: async () => client, renew: async () => undefined, forget() {} };
}

/**
 * A workspace's token is read from the store once a minute at most, and a rotating one no later
 * than it is due for renewal. A replica that has not seen an uninstall yet makes a call with the
 * revoked token; Slack's `token_revoked` answer makes it look again at once.
 */
const KEEP_MS = 60_000;

interface Kept {
  at: number;
  /** When the token is due for renewal (ms), for a rotating one. */
  renewAt?: number;
  client: Promise<WebClient>;
}

export class InstalledWorkspaces implements Workspaces {
  readonly distributed = true;
  private readonly known = new Map<string, Kept>();

  constructor(
    private readonly installations: SlackInstallations,
    private readonly clientOptions: WebClientOptions,
    private readonly keepMs = KEEP_MS,
  ) {}

  client(teamId: string | undefined): Promise<WebClient> {
    if (!teamId) return Promise.reject(new NotInstalledError("(unknown)"));
    const kept = this.known.get(teamId);
    const now = Date.now();
    if (kept && now - kept.at < this.keepMs && (kept.renewAt === undefined || now < kept.renewAt))
      return kept.client;
    return this.keep(teamId, this.installations.fresh(teamId));
  }

  async renew(
    teamId: string,
    token: string | undefined,
    why: "expired" | "dead",
  ): Promise<WebClient | undefined> {
    this.forget(teamId);
    const next =
      why === "expired" ? this.installations.renewed(teamId, token) : this.installations.get(teamId);
    const client = await this.keep(teamId, next).catch(() => undefined);
    return client && client.token !== token ? client : undefined;
  }

  forget(teamId: string): void {
    this.known.delete(teamId);
  }

  private keep(teamId: string, read: Promise<Installation | undefined>): Promise<WebClient> {
    const entry: Kept = {
      at: Date.now(),
      client: read.then((installation) => {
        const token = installation?.bot?.token;
        if (!token) throw new NotInstalledError(teamId);
        const expiresAt = installation.bot?.expiresAt;
        if (expiresAt !== undefined && installation.bot?.refreshToken)
          entry.renewAt = expiresAt * 1000 - RENEW_WITHIN_MS;
        return new webApi.WebClient(token, { ...this.clientOptions, teamId });
      }),
    };
    this.known.set(teamId, entry);
    // A failed lookup is not kept: the next call asks the store again.
    entry.client.catch(() => {
      if (this.known.get(teamId) === entry) this.known.delete(teamId);
    });
    return entry.client;
  }
}
