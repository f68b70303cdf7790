import type {
  InstallationStore as BoltInstallationStore,
  Installation,
  InstallationQuery,
} from "@slack/bolt";
import { BotError, UndeliverableError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { addSecret } from "../core/redact.js";
import { type InstallationStore, isStoreOutage } from "../store/index.js";
import { toJson } from "../store/records.js";

/** What a workspace's people see once its installation is gone (uninstalled, tokens revoked). */
export const REMOVED_FROM_WORKSPACE =
  "The bot was removed from this workspace. An admin can install it again.";

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
 * Bolt's InstallationStore on the bot's store (src/store/installations.ts): what oauth.v2.access
 * handed over, kept whole and encrypted, one record per workspace. Every token read or written is
 * registered with the log redaction, besides the xoxb- shape it already knows.
 */
export class SlackInstallations implements BoltInstallationStore {
  /**
   * Each workspace's installation as last read, used only while the store is away: Bolt reads
   * it for every request, and without it a store outage would leave a workspace's commands
   * unanswered instead of told to try again in a moment.
   */
  private readonly lastRead = new Map<string, Installation>();

  constructor(
    private readonly store: InstallationStore,
    private readonly logger: Logger,
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
    const installation = query.teamId ? await this.get(query.teamId) : undefined;
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
