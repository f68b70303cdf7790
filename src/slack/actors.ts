import type { Logger } from "../core/base/log.js";
import type { Actor } from "../core/base/ports.js";
import type { Workspaces } from "./workspaces.js";

/** What users.info says of a person that the core needs: admin or not, the language they read Slack in. */
interface Person {
  isAdmin: boolean;
  locale?: string;
}

/** A workspace's user groups: who is in which (user id -> group ids, S…), and each group's handle. */
interface Groups {
  members: ReadonlyMap<string, readonly string[]>;
  handles: ReadonlyMap<string, string>;
}

/** Slack's error code of a failed Web API call (`{ ok: false, error }`), if that is what failed. */
function slackError(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

/**
 * A usergroups.list that Slack holds back (rate limited: the WebClient waits out Retry-After
 * before it tries again) must not hold a start for as long: past this, the groups are not known.
 */
const GROUPS_WITHIN_MS = 5_000;
/**
 * When Slack does not answer, the last answer is used if it is this recent, so that a moment of
 * trouble at Slack does not stop a workspace's paid starts; older, the groups are not known.
 */
const STALE_MS = 15 * 60_000;

/**
 * Who clicked or typed: Slack's payloads name the user but not their role or language, so admin
 * (workspace admin or owner) and their locale ("de-DE", `include_locale`) come from users.info,
 * cached for a few minutes per user, and asked again at once after Slack's `user_change` (a
 * member's data changed: made an admin, another language). The cache holds the
 * answer while it is on its way too, so a burst of commands from one person asks once. Each
 * workspace is asked with its own token.
 *
 * `roleIds` are the user's Slack user groups (subteams, S…), what role budgets bind on Slack:
 * one `usergroups.list` with `include_users` per workspace (scope `usergroups:read`), cached for
 * the same few minutes and shared while on its way, so a burst from a whole workspace asks once.
 * Joining or leaving a group counts within those minutes. When Slack does not answer (an error,
 * a rate limit that outlasts `GROUPS_WITHIN_MS`), the last answer of the past 15 minutes stands
 * in (logged); without one the groups are not known (`rolesUnknown`): allow-lists of groups keep
 * the person out, and a group's budget refuses the start ("try again") rather than not bind it.
 * A workspace that did not grant the scope (installed before it was asked for) answers
 * `missing_scope`, which is not known either, logged once.
 *
 * `of` waits for these calls, and that is fine only because every listener (listeners/) calls
 * it after Bolt's `ack()`, in the work queued behind it: acks stay fast. What answers before its
 * ack (the options of a form, opening a follow-up's form while its trigger_id lives) uses
 * `quick`, which makes no call and knows no admin and no groups.
 */
export class Actors {
  private readonly people = new Map<string, { at: number; person: Promise<Person> }>();
  private readonly groups = new Map<string, { at: number; groups: Promise<Groups | undefined> }>();
  /** Each workspace's last answer, for when Slack does not answer. */
  private readonly answered = new Map<string, { at: number; groups: Groups }>();
  /** Workspaces whose missing_scope was logged, so that it is logged once. */
  private readonly unscoped = new Set<string>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly logger: Logger,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async of(teamId: string, userId: string): Promise<Actor> {
    const [person, groups] = await Promise.all([this.person(teamId, userId), this.groupsOf(teamId)]);
    return {
      platform: "slack",
      tenantId: teamId,
      userId,
      isAdmin: person.isAdmin,
      ...(person.locale && { locale: person.locale }),
      roleIds: [...(groups?.members.get(userId) ?? [])],
      ...(!groups && { rolesUnknown: true as const }),
    };
  }

  /** For autocomplete, which answers within 3 s and needs only the workspace: no call, no groups. */
  quick(teamId: string, userId: string): Actor {
    return { platform: "slack", tenantId: teamId, userId, isAdmin: false, roleIds: [] };
  }

  /**
   * The person's Slack locale for what answers before its ack's work (a form, opened while its
   * trigger_id lives): users.info's cached answer, else a new one if it comes within `withinMs`
   * (undefined after: the form is then in the workspace's fallback, English).
   */
  async locale(teamId: string, userId: string, withinMs = 1_000): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, withinMs, undefined);
    });
    try {
      return await Promise.race([this.person(teamId, userId).then((person) => person.locale), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The user's groups, asked of Slack again (ChatAdapter.rolesOf); throws when Slack cannot say. */
  async rolesOf(teamId: string, userId: string): Promise<string[]> {
    const groups = await this.groupsOf(teamId);
    if (!groups) throw new Error(`the user groups of workspace ${teamId} could not be read`);
    return [...(groups.members.get(userId) ?? [])];
  }

  /** The handles of the workspace's groups (`designers` for @designers), from the same answer. */
  async handles(teamId: string): Promise<ReadonlyMap<string, string>> {
    return (await this.groupsOf(teamId))?.handles ?? new Map();
  }

  /** The person's data changed at Slack (`user_change`): their next gesture asks users.info again. */
  forget(teamId: string, userId: string): void {
    this.people.delete(`${teamId}:${userId}`);
  }

  /**
   * One users.info per person (with their locale: `include_locale`), cached for `ttlMs` and shared
   * while on its way.
   */
  private person(teamId: string, userId: string): Promise<Person> {
    const key = `${teamId}:${userId}`;
    const cached = this.people.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.person;
    const entry = {
      at: Date.now(),
      person: this.workspaces
        .client(teamId)
        .then((client) => client.users.info({ user: userId, include_locale: true }))
        .then(
          ({ user }): Person => ({
            isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
            ...(user?.locale && { locale: user.locale }),
          }),
          (error: unknown): Person => {
            // Not knowing means not an admin, and is not kept: the next gesture asks again.
            if (this.people.get(key) === entry) this.people.delete(key);
            this.logger.warn({ err: error, userId }, "users.info failed; treating the user as a member");
            return { isAdmin: false };
          },
        ),
    };
    this.people.set(key, entry);
    return entry.person;
  }

  private groupsOf(teamId: string): Promise<Groups | undefined> {
    const cached = this.groups.get(teamId);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.groups;
    const reading = this.read(teamId);
    const entry = { at: Date.now(), groups: reading.then((read) => read.groups) };
    this.groups.set(teamId, entry);
    // Only Slack's own answer is kept: after no answer (or an old one in its place) the next
    // gesture asks again.
    void reading.then((read) => {
      if (!read.answered && this.groups.get(teamId) === entry) this.groups.delete(teamId);
    });
    return entry.groups;
  }

  private async read(teamId: string): Promise<{ groups: Groups | undefined; answered: boolean }> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`usergroups.list gave no answer within ${GROUPS_WITHIN_MS} ms`)),
        GROUPS_WITHIN_MS,
      );
    });
    const asked = this.workspaces
      .client(teamId)
      .then((client) => client.usergroups.list({ include_users: true }));
    // A late answer still lands in the cache of the next gesture's call; this one stops waiting.
    asked.catch(() => undefined);
    try {
      const { usergroups } = await Promise.race([asked, late]);
      this.unscoped.delete(teamId);
      const members = new Map<string, string[]>();
      const handles = new Map<string, string>();
      for (const group of usergroups ?? []) {
        // Disabled groups are left out by Slack already (no include_disabled).
        if (!group.id || group.date_delete) continue;
        if (group.handle) handles.set(group.id, group.handle);
        for (const user of group.users ?? []) members.set(user, [...(members.get(user) ?? []), group.id]);
      }
      const groups = { members, handles };
      this.answered.set(teamId, { at: Date.now(), groups });
      return { groups, answered: true };
    } catch (error) {
      return this.unanswered(teamId, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private unanswered(teamId: string, error: unknown): { groups: Groups | undefined; answered: boolean } {
    if (slackError(error) === "missing_scope") {
      if (!this.unscoped.has(teamId)) {
        this.unscoped.add(teamId);
        this.logger.warn(
          { teamId },
          "Slack: usergroups.list needs the usergroups:read scope (reinstall the app); until then starts that a user group's budget may bind are refused in this workspace",
        );
      }
      // Slack's answer all the same, kept like one (asked again once old, as after a reinstall).
      return { groups: undefined, answered: true };
    }
    const last = this.answered.get(teamId);
    if (last && Date.now() - last.at < STALE_MS) {
      this.logger.warn(
        { err: error, teamId, answeredAt: new Date(last.at).toISOString() },
        "usergroups.list failed; using its last answer",
      );
      return { groups: last.groups, answered: false };
    }
    this.logger.warn({ err: error, teamId }, "usergroups.list failed; the user's groups are not known");
    return { groups: undefined, answered: false };
  }
}
