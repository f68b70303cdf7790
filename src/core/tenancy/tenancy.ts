import type { TenantRef } from "../../common/types.js";
import type { PersonRef } from "../../store/preferences.js";
import { SecretsError } from "../../store/secrets.js";
import type { TenantPatch, TenantSettings, TenantStore } from "../../store/tenants.js";
import type { Actor, ConversationRef } from "../base/ports.js";
import { AccessError, SetupError } from "../base/refusals.js";
import { msg, command as ref } from "../i18n/msg.js";

/**
 * A tenant is a Discord guild or a Slack workspace: it owns an API key (its own, stored
 * encrypted, or the bot's MEDIA_API_KEY when the operator lets it use that) and settings that say
 * who may use the bot where. A person is a tenant of their own, under their own id, where they use
 * the bot outside any server that added it (Discord user installs, the DM with the bot): their key
 * pays there, and MEDIA_API_KEY_TENANTS may name them.
 */

/**
 * MEDIA_API_KEY_TENANTS: the guild, team and user ids the bot's own key serves; "*" among them
 * stands for every server and workspace. People are served only by name: with User Install
 * ticked, anyone on Discord can add the app to their account, and `*` must not hand each of them
 * the operator's key.
 */
export type SharedKeyTenants = readonly string[];

export const EVERY_SERVER = "*";

export interface SharedKey {
  /** MEDIA_API_KEY. */
  key: string | undefined;
  tenants: SharedKeyTenants;
}

export interface TenantKey {
  value: string;
  /**
   * The bot's key, which other tenants spend too: the account's lists hold their records as
   * well, so the tenant is shown only what it made through the bot.
   */
  shared: boolean;
}

export { type TenantRef, tenantKey } from "../../common/types.js";

export const tenantOf = (
  actor: Pick<Actor, "platform" | "tenantId"> & Partial<Pick<Actor, "userId">>,
): TenantRef =>
  actor.userId !== undefined && isPersonal({ tenantId: actor.tenantId, userId: actor.userId })
    ? { platform: actor.platform, tenantId: actor.tenantId, personal: true }
    : { platform: actor.platform, tenantId: actor.tenantId };

/** Whose defaults and presets: a person has their own in each server or workspace. */
export const personOf = (actor: Pick<Actor, "platform" | "tenantId" | "userId">): PersonRef => ({
  platform: actor.platform,
  tenantId: actor.tenantId,
  userId: actor.userId,
});

/**
 * The actor is their own tenant. Ids of people and of tenants never collide: Discord's are
 * snowflakes, unique across kinds; Slack's team and user ids differ by their first letter.
 */
export const isPersonal = (actor: Pick<Actor, "tenantId" | "userId">): boolean =>
  actor.tenantId === actor.userId;

export class Tenancy {
  constructor(
    private readonly tenants: TenantStore,
    private readonly shared: SharedKey,
  ) {}

  /** The operator lets this tenant use MEDIA_API_KEY (when it has no key of its own). */
  servesSharedKey(tenant: TenantRef): boolean {
    const { key, tenants } = this.shared;
    return (
      Boolean(key) &&
      (tenants.includes(tenant.tenantId) || (!tenant.personal && tenants.includes(EVERY_SERVER)))
    );
  }

  settings(tenant: TenantRef): Promise<TenantSettings> {
    return this.tenants.get(tenant);
  }

  /** Setup's changes; an API key is encrypted by the store. */
  update(tenant: TenantRef, patch: TenantPatch): Promise<TenantSettings> {
    return this.tenants.update(tenant, patch);
  }

  /**
   * The key calls run with: the tenant's own, else the bot's default when it serves the tenant;
   * undefined when neither applies.
   */
  async apiKey(tenant: TenantRef): Promise<TenantKey | undefined> {
    try {
      const own = await this.tenants.getApiKey(tenant);
      if (own) return { value: own, shared: false };
      if (!this.servesSharedKey(tenant) || !this.shared.key) return undefined;
      // One listed tenant has the operator's account to itself: nothing to hide from it.
      const shared = this.shared.tenants.includes(EVERY_SERVER) || this.shared.tenants.length > 1;
      return { value: this.shared.key, shared };
    } catch (error) {
      if (!(error instanceof SecretsError)) throw error;
      throw new SetupError(
        "setup.key_unreadable",
        msg("refusal.setup.key_unreadable", { setup: ref("setup") }),
        { message: error.message, cause: error },
      );
    }
  }

  /**
   * Admin-only commands, then the tenant's allow-lists. Admins pass the allow-lists, so a
   * misconfigured list can always be repaired with setup. Flows call it through `admit`.
   */
  checkAccess(
    actor: Actor,
    conversation: Pick<ConversationRef, "channelId">,
    settings: TenantSettings,
    command?: { name: string; adminOnly?: boolean | undefined },
  ): void {
    const admin = isAdmin(actor, settings);
    if (command?.adminOnly && !admin) {
      throw new AccessError(
        "access.admin_only",
        msg("refusal.access.admin_command", { command: ref(command.name) }),
      );
    }
    if (admin) return;
    if (
      settings.allowedChannelIds.length > 0 &&
      !settings.allowedChannelIds.includes(conversation.channelId)
    ) {
      throw new AccessError("access.channel", msg("refusal.access.channel"));
    }
    if (
      settings.allowedRoleIds.length > 0 &&
      !actor.roleIds.some((role) => settings.allowedRoleIds.includes(role))
    ) {
      throw new AccessError("access.role", msg("refusal.access.role"));
    }
  }
}

/** The platform's own admins (Manage Guild, workspace admin or owner), and those setup names. */
export function isAdmin(actor: Actor, settings: Pick<TenantSettings, "adminUserIds">): boolean {
  return actor.isAdmin || settings.adminUserIds.includes(actor.userId);
}
