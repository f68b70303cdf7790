import { flagArg, type Method, missingScope } from "./args.js";

/**
 * usergroups.list (usergroups:read): the workspace's user groups, without the disabled ones unless
 * include_disabled; each group's members only with include_users. Not paginated, as on Slack.
 */
export const userGroupMethods: Record<string, Method> = {
  "usergroups.list": {
    token: "bot",
    run(ctx) {
      const refused = missingScope(ctx, "usergroups:read");
      if (refused) return refused;
      const { args, team } = ctx;
      const withUsers = flagArg(args, "include_users");
      const usergroups = team.userGroups
        .filter((group) => flagArg(args, "include_disabled") || group.date_delete === 0)
        .map(({ users, ...group }) => ({
          ...group,
          user_count: users.length,
          ...(withUsers && { users: [...users] }),
        }));
      return { ok: true, usergroups };
    },
  },
};
