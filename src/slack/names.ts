import type { NameRef } from "../core/base/ports.js";
import type { Actors } from "./actors.js";
import type { Workspaces } from "./workspaces.js";

/**
 * Who people, user groups and channels are, for budgets, usage and the export
 * (`ChatAdapter.names`, kept a while by the core): a person by users.info (their display name,
 * else their full name), a group by its handle from the groups the actors already read
 * (usergroups.list), a channel by conversations.info (scopes channels:read and groups:read; an
 * app installed before they were asked for names channels by id until it is reinstalled).
 * What Slack cannot say is left out, and shown by id.
 */

/** Calls at once to one workspace: users.info and conversations.info are tier 4 and 3 (100 and 50 a minute). */
const AT_ONCE = 4;

/** Every DM with the bot has a D… id and no name: what it is, said plainly. */
const DIRECT = "direct messages";

export class SlackNames {
  constructor(
    private readonly workspaces: Workspaces,
    private readonly actors: Actors,
  ) {}

  async names(teamId: string, refs: readonly NameRef[]): Promise<ReadonlyMap<string, string>> {
    const found = new Map<string, string>();
    const client = await this.workspaces.client(teamId);
    const handles = refs.some((ref) => ref.kind === "role") ? await this.actors.handles(teamId) : new Map();
    const lookups = refs.map((ref) => async () => {
      const name = await this.nameOf(ref, client, handles).catch(() => undefined);
      if (name) found.set(`${ref.kind}:${ref.id}`, name);
    });
    for (let start = 0; start < lookups.length; start += AT_ONCE) {
      await Promise.all(lookups.slice(start, start + AT_ONCE).map((lookup) => lookup()));
    }
    return found;
  }

  private async nameOf(
    ref: NameRef,
    client: Awaited<ReturnType<Workspaces["client"]>>,
    handles: ReadonlyMap<string, string>,
  ): Promise<string | undefined> {
    switch (ref.kind) {
      case "role":
        return handles.get(ref.id);
      case "user": {
        const { user } = await client.users.info({ user: ref.id });
        return user?.profile?.display_name || user?.real_name || user?.name || undefined;
      }
      case "channel": {
        if (ref.id.startsWith("D")) return DIRECT;
        const { channel } = await client.conversations.info({ channel: ref.id });
        return channel?.name || undefined;
      }
    }
  }
}
