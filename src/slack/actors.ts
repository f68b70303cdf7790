import type { Logger } from "../core/log.js";
import type { Actor } from "../core/ports.js";
import type { Workspaces } from "./workspaces.js";

/** A workspace's user groups by member: user id -> the ids (S…) of the groups they are in. */
type Memberships = ReadonlyMap<string, readonly string[]>;

const NO_GROUPS: Memberships = new Map();

/** Slack's error code of a failed Web API call (`{ ok: false, error }`), if that is what failed. */
function slackError(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

/**
 * Who clicked or typed: Slack's payloads name the user but not their role, so admin (workspace
 * admin or owner) comes from users.info, cached for a few minutes per user. The cache holds the
 * answer while it is on its way too, so a burst of commands from one person asks once. Each
 * workspace is asked with its own token.
 *
 * `roleIds` are the user's Slack user groups (subteams, S…), what role budgets bind on Slack:
 * one `usergroups.list` with `include_users` per workspace (scope `usergroups:read`), cached for
 * the same few minutes and shared while on its way, so a burst from a whole workspace asks once.
 * Joining or leaving a group counts within those minutes. Not knowing (a failed call) means no
 * groups, logged and not kept; a workspace that did not grant the scope (installed before it was
 * asked for) answers `missing_scope`: no groups, kept like an answer and logged once.
 *
 * `of` waits for these calls, and that is fine only because every caller in app.ts calls it after
 * Bolt's `ack()`, in the work queued behind it: acks stay fast. What answers before its ack (the
 * options of a form, opening a follow-up's form while its trigger_id lives) uses `quick`, which
 * makes no call and knows no admin and no groups.
 */
export class Actors {
  private readonly admins = new Map<string, { at: number; isAdmin: Promise<boolean> }>();
  private readonly groups = new Map<string, { at: number; members: Promise<Memberships> }>();
  /** Workspaces whose missing_scope was logged, so that it is logged once. */
  private readonly unscoped = new Set<string>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly logger: Logger,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async of(teamId: string, userId: string): Promise<Actor> {
    const [isAdmin, members] = await Promise.all([this.isAdmin(teamId, userId), this.memberships(teamId)]);
    return {
      platform: "slack",
      tenantId: teamId,
      userId,
      isAdmin,
      roleIds: [...(members.get(userId) ?? [])],
    };
  }

  /** For autocomplete, which answers within 3 s and needs only the workspace: no call, no groups. */
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

  private memberships(teamId: string): Promise<Memberships> {
    const cached = this.groups.get(teamId);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.members;
    const entry = {
      at: Date.now(),
      members: this.workspaces
        .client(teamId)
        .then((client) => client.usergroups.list({ include_users: true }))
        .then(
          ({ usergroups }) => {
            this.unscoped.delete(teamId);
            const members = new Map<string, string[]>();
            for (const group of usergroups ?? []) {
              // Disabled groups are left out by Slack already (no include_disabled).
              if (!group.id || group.date_delete) continue;
              for (const user of group.users ?? [])
                members.set(user, [...(members.get(user) ?? []), group.id]);
            }
            return members;
          },
          (error: unknown): Memberships => {
            if (slackError(error) === "missing_scope") {
              // An answer, not a failure: kept like one (asked again once old, as after a reinstall).
              if (!this.unscoped.has(teamId)) {
                this.unscoped.add(teamId);
                this.logger.warn(
                  { teamId },
                  "Slack: usergroups.list needs the usergroups:read scope (reinstall the app); budgets of user groups do not apply in this workspace",
                );
              }
              return NO_GROUPS;
            }
            // Not knowing means no groups, and is not kept: the next gesture asks again.
            if (this.groups.get(teamId) === entry) this.groups.delete(teamId);
            this.logger.warn(
              { err: error, teamId },
              "usergroups.list failed; treating the user as in no group",
            );
            return NO_GROUPS;
          },
        ),
    };
    this.groups.set(teamId, entry);
    return entry.members;
  }
}
