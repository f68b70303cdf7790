import type { Logger } from "../core/log.js";
import type { Actor } from "../core/ports.js";
import type { Workspaces } from "./workspaces.js";

/**
 * Who clicked or typed: Slack's payloads name the user but not their role, so admin (workspace
 * admin or owner) comes from users.info, cached for a few minutes per user. The cache holds the
 * answer while it is on its way too, so a burst of commands from one person asks once. Each
 * workspace is asked with its own token.
 */
export class Actors {
  private readonly admins = new Map<string, { at: number; isAdmin: Promise<boolean> }>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly logger: Logger,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async of(teamId: string, userId: string): Promise<Actor> {
    return {
      platform: "slack",
      tenantId: teamId,
      userId,
      isAdmin: await this.isAdmin(teamId, userId),
      roleIds: [],
    };
  }

  /** For autocomplete, which answers within 3 s and needs only the workspace. */
  quick(teamId: string, userId: string): Actor {
    return { platform: "slack", tenantId: teamId, userId, isAdmin: false, roleIds: [] };
  }

  private isAdmin(teamId: string, userId: string): Promise<boolean> {
    const key = `${teamId}:${userId}`;
    const cached = this.admins.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.isAdmin;
    const entry = {
      at: Date.now(),
      isAdmin: this.workspaces
        .client(teamId)
        .then((client) => client.users.info({ user: userId }))
        .then(
          ({ user }) => Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
          (error: unknown) => {
            // Not knowing means not an admin, and is not kept: the next gesture asks again.
            if (this.admins.get(key) === entry) this.admins.delete(key);
            this.logger.warn({ err: error, userId }, "users.info failed; treating the user as a member");
            return false;
          },
        ),
    };
    this.admins.set(key, entry);
    return entry.isAdmin;
  }
}
