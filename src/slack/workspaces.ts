import { webApi } from "@slack/bolt";
import type { WebClient, WebClientOptions } from "@slack/web-api";
import { NotInstalledError, type SlackInstallations } from "./installations.js";

/**
 * Which Web API client speaks for a workspace. With SLACK_BOT_TOKEN there is one workspace and
 * one client; with OAuth each workspace has the token of its own installation, looked up by the
 * team id every conversation and message the adapter hands out carries (`data.team`), so a job
 * delivered after a restart, or by another replica, still posts with its own workspace's token.
 */
export interface Workspaces {
  /** The client with `teamId`'s bot token; NotInstalledError (undeliverable) where the app is not installed. */
  client(teamId: string | undefined): Promise<WebClient>;
  /** Drops what is kept for a workspace: uninstalled, or its token refused. */
  forget(teamId: string): void;
}

export function singleWorkspace(client: WebClient): Workspaces {
  return { client: async () => client, forget() {} };
}

/**
 * A workspace's token is read from the store once a minute at most. A replica that has not seen
 * the uninstall yet makes a call or two with the revoked token until then; Slack's
 * `token_revoked` answer makes the adapter forget it at once (and give up on that delivery).
 */
const KEEP_MS = 60_000;

export class InstalledWorkspaces implements Workspaces {
  private readonly known = new Map<string, { at: number; client: Promise<WebClient> }>();

  constructor(
    private readonly installations: SlackInstallations,
    private readonly clientOptions: WebClientOptions,
    private readonly keepMs = KEEP_MS,
  ) {}

  client(teamId: string | undefined): Promise<WebClient> {
    if (!teamId) return Promise.reject(new NotInstalledError("(unknown)"));
    const kept = this.known.get(teamId);
    if (kept && Date.now() - kept.at < this.keepMs) return kept.client;
    const entry = { at: Date.now(), client: this.open(teamId) };
    this.known.set(teamId, entry);
    // A failed lookup is not kept: the next call asks the store again.
    entry.client.catch(() => {
      if (this.known.get(teamId) === entry) this.known.delete(teamId);
    });
    return entry.client;
  }

  forget(teamId: string): void {
    this.known.delete(teamId);
  }

  private async open(teamId: string): Promise<WebClient> {
    const token = (await this.installations.get(teamId))?.bot?.token;
    if (!token) throw new NotInstalledError(teamId);
    return new webApi.WebClient(token, { ...this.clientOptions, teamId });
  }
}
