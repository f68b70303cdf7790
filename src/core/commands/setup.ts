import { z } from "zod";
import { SecretsError } from "../../store/secrets.js";
import type { TenantPatch, TenantSettings } from "../../store/tenants.js";
import { type Card, card } from "../base/cards.js";
import { UnauthorizedError } from "../base/errors.js";
import { DEFAULT_JOB_LIMIT, DEFAULT_QUEUE_LIMIT } from "../base/limits.js";
import type { Actor } from "../base/ports.js";
import type { MessageKey } from "../i18n/catalogues.js";
import { chosenLanguage, LANGUAGE_CHOICES, LANGUAGE_NAMES, withLanguage } from "../i18n/languages.js";
import { readerLocale } from "../i18n/locale.js";
import { command, msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { isPersonal, tenantOf } from "../tenancy/tenancy.js";
import { defineCommand } from "./define.js";
import { AccessError, InputError, SetupError } from "./errors.js";
import { flag, IMAGE_ASPECT_RATIOS, text, wholeNumber } from "./options.js";

/** "<@&123>, <@U42|ann>, 456" -> ["123", "U42", "456"]; "none" (or "everyone") clears the list. */
export function idList(value: string, option: string): string[] {
  if (/^\s*(none|all|everyone|any|-)\s*$/i.test(value)) return [];
  const ids = value
    .split(/[\s,]+/)
    .filter(Boolean)
    // Discord role <@&id>, user <@id> / <@!id> and channel <#id> mentions; Slack <@U1|ann>, <#C1|name>.
    .map((part) => part.replace(/^<(?:@&|@!|@|#)([\w-]+)(?:\|[^>]*)?>$/, "$1"));
  const bad = ids.filter((id) => !/^[\w-]{1,40}$/.test(id));
  if (bad.length > 0) {
    throw new InputError(
      "input.invalid_option",
      msg("refusal.setup.id_list", { option, bad: bad[0]!, none: "none" }),
    );
  }
  return [...new Set(ids)];
}

/** What setup changes of a server's or workspace's only: who may use the bot where, and alerts. */
const SHARED_ONLY = [
  "allowed_roles",
  "allowed_channels",
  "admins",
  "alerts_channel",
  "alert_at",
  "private_results",
  "running_limit",
  "queue_length",
  "server_running_limit",
] as const;

/** What setup shows of a tenant's settings (a person's own in their DM), in its reader's words. */
export function setupCard(
  title: "setup.title.current" | "setup.title.saved",
  settings: TenantSettings,
  hasFallbackKey: boolean,
  actor: Actor,
): Card {
  const t = translatorFor(readerLocale(actor));
  const lines =
    title === "setup.title.current" ? [t.text("setup.change_hint", { setup: command("setup") })] : [];
  const personal = isPersonal(actor);
  const list = (ids: string[], all: MessageKey) => (ids.length === 0 ? t.text(all) : ids.join(", "));
  const key = settings.hasApiKey
    ? t.text("setup.key.own", { whose: personal ? "personal" : actor.platform })
    : hasFallbackKey
      ? t.text("setup.key.fallback")
      : t.text("setup.key.none");
  const aspect = {
    name: t.text("setup.field.aspect_ratio"),
    value: String(settings.defaults.aspect_ratio ?? t.text("setup.service_default")),
    inline: true,
  };
  const chosen = chosenLanguage(settings.defaults);
  const language = {
    name: t.text("setup.field.language"),
    value: chosen ? LANGUAGE_NAMES[chosen] : t.text("setup.language_automatic"),
    inline: true,
  };
  const apiKey = { name: t.text("setup.field.api_key"), value: key };
  const parts = { lines, locale: t.locale };
  if (personal) return card(t.text(title), "success", { ...parts, fields: [apiKey, aspect, language] });
  const limit = (n: number | null, fallback: number) =>
    n === null ? t.text("setup.jobs.default", { n: String(fallback) }) : String(n);
  return card(t.text(title), "success", {
    ...parts,
    fields: [
      apiKey,
      {
        name: t.text("setup.field.allowed_roles"),
        value: list(settings.allowedRoleIds, "setup.everyone"),
        inline: true,
      },
      {
        name: t.text("setup.field.allowed_channels"),
        value: list(settings.allowedChannelIds, "setup.every_channel"),
        inline: true,
      },
      { name: t.text("setup.field.admins"), value: list(settings.adminUserIds, "setup.none"), inline: true },
      {
        name: t.text("setup.field.alerts"),
        value: settings.alertChannelId
          ? t.text("setup.alerts.on", {
              channel: settings.alertChannelId,
              percents: settings.alertAt
                .map((f) => t.text("setup.alerts.percent", { percent: Math.round(f * 100) }))
                .join(", "),
            })
          : t.text("setup.alerts.off", { alerts_channel: "alerts_channel" }),
        inline: true,
      },
      {
        name: t.text("setup.field.private_results"),
        value:
          settings.privateResults === "allowed"
            ? t.text("setup.private.allowed", { delivery: "delivery private" })
            : t.text("setup.private.forbidden"),
        inline: true,
      },
      {
        name: t.text("setup.field.jobs_at_once"),
        value: t.text("setup.jobs", {
          running: limit(settings.runningLimit, DEFAULT_JOB_LIMIT),
          queued: limit(settings.queueLimit, DEFAULT_QUEUE_LIMIT),
          total: settings.tenantRunningLimit
            ? t.text("setup.jobs.total", { n: String(settings.tenantRunningLimit) })
            : t.text("setup.jobs.no_total"),
        }),
        inline: true,
      },
      aspect,
      language,
    ],
  });
}

/** "here" is where setup runs; "none" turns alerts off. */
function alertChannel(value: string, here: string): string | null {
  if (/^\s*here\s*$/i.test(value)) return here;
  if (/^\s*(none|off)\s*$/i.test(value)) return null;
  const ids = /^\s*(all|everyone|any|-)\s*$/i.test(value) ? [] : idList(value, "alerts_channel");
  if (ids.length !== 1) {
    throw new InputError(
      "input.invalid_option",
      msg("refusal.setup.alerts_channel", { option: "alerts_channel", here: "here", none: "none" }),
    );
  }
  return ids[0]!;
}

/** "20, 5" or "20%,5%" -> [0.2, 0.05]: whole or decimal percentages strictly between 0 and 100. */
export function alertFractions(value: string): number[] {
  const parts = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => part.replace(/%$/, ""));
  const fractions = parts.map(Number).map((percent) => percent / 100);
  if (
    parts.length === 0 ||
    parts.length > 5 ||
    fractions.some((f) => !Number.isFinite(f) || f <= 0 || f >= 1)
  ) {
    throw new InputError("input.invalid_option", msg("refusal.setup.alert_at", { option: "alert_at" }));
  }
  return [...new Set(fractions)].sort((a, b) => b - a);
}

export const setup = defineCommand({
  name: "setup",
  help: "Admins: set this server's API key, who may use the bot where, and defaults (in a DM: your own)",
  options: z.object({
    api_key: text(500, "The media service API key (entered in a private form, never shown)").optional(),
    remove_api_key: flag("Forget this server's key and use the bot's default one").optional(),
    allowed_roles: text(
      1000,
      "Roles allowed to use the bot (ids or mentions), or none for everyone",
    ).optional(),
    allowed_channels: text(1000, "Channels the bot works in (ids or mentions), or none for all").optional(),
    admins: text(1000, "People who may act as admins here (user ids or mentions), or none").optional(),
    default_aspect_ratio: z
      .enum(IMAGE_ASPECT_RATIOS)
      .describe("Aspect ratio of images when none is given")
      .optional(),
    alerts_channel: text(200, "Channel for spending alerts (a mention, here, or none)").optional(),
    alert_at: text(100, "Credits left, in percent, at which to alert (default 20, 5)").optional(),
    private_results: z
      .enum(["allowed", "forbidden"])
      .describe(
        "Whether people may have jobs delivered to them only (forbidden: every job shows in its channel)",
      )
      .optional(),
    running_limit: wholeNumber(
      1,
      50,
      `Jobs one person may have running at once (default ${DEFAULT_JOB_LIMIT})`,
    ).optional(),
    queue_length: wholeNumber(
      0,
      100,
      `Jobs one person may have queued past that (default ${DEFAULT_QUEUE_LIMIT})`,
    ).optional(),
    server_running_limit: wholeNumber(
      0,
      1000,
      "Jobs everyone here may have running at once, the rest queued in turn (0: no limit)",
    ).optional(),
    language: z
      .enum(LANGUAGE_CHOICES)
      .describe("The bot's language for people whose app's language it does not speak")
      .optional(),
  }),
  secret: ["api_key"],
  submit: "Save",
  adminOnly: true,
  personal: true,
  ephemeral: true,
  usesService: false,
  async run({ options, actor, conversation, settings, services }) {
    const personal = isPersonal(actor);
    if (personal && conversation.gestureOnly) {
      // Where the bot is no member (a group DM, a server without it), setup would be the
      // person's own settings, set among others: their DM with the bot is the place for those.
      throw new AccessError(
        "access.setup_in_dm",
        msg("refusal.access.setup_in_dm", { setup: command("setup") }),
      );
    }
    const shared = SHARED_ONLY.find((option) => options[option] !== undefined);
    if (personal && shared) {
      throw new InputError(
        "input.invalid_option",
        msg("refusal.setup.server_only", {
          option: shared,
          setup: command("setup"),
          api_key: "api_key",
          remove_api_key: "remove_api_key",
          default_aspect_ratio: "default_aspect_ratio",
        }),
      );
    }
    const tenant = tenantOf(actor);
    const patch: TenantPatch = {};
    if (options.api_key !== undefined && options.remove_api_key) {
      throw new InputError("input.invalid_option", msg("refusal.setup.key_and_removal"));
    }
    if (options.allowed_roles !== undefined)
      patch.allowedRoleIds = idList(options.allowed_roles, "allowed_roles");
    if (options.allowed_channels !== undefined) {
      patch.allowedChannelIds = idList(options.allowed_channels, "allowed_channels");
    }
    if (options.admins !== undefined) patch.adminUserIds = idList(options.admins, "admins");
    if (options.default_aspect_ratio !== undefined) {
      patch.defaults = { ...settings.defaults, aspect_ratio: options.default_aspect_ratio };
    }
    if (options.language !== undefined) {
      patch.defaults = withLanguage(patch.defaults ?? settings.defaults, options.language);
    }
    if (options.alerts_channel !== undefined) {
      patch.alertChannelId = alertChannel(options.alerts_channel, conversation.channelId);
    }
    if (options.alert_at !== undefined) patch.alertAt = alertFractions(options.alert_at);
    if (options.private_results !== undefined) patch.privateResults = options.private_results;
    if (options.running_limit !== undefined) patch.runningLimit = options.running_limit;
    if (options.queue_length !== undefined) patch.queueLimit = options.queue_length;
    if (options.server_running_limit !== undefined)
      patch.tenantRunningLimit = options.server_running_limit || null;
    if (options.remove_api_key) patch.apiKey = null;
    if (options.api_key !== undefined) {
      // A mistyped key would otherwise only show up as failures on everyone's next command.
      try {
        await services.client.as(options.api_key).usage.get();
      } catch (error) {
        if (error instanceof UnauthorizedError) {
          throw new InputError(
            "input.api_key",
            msg("refusal.setup.key_refused", { setup: command("setup") }),
          );
        }
        throw error;
      }
      patch.apiKey = options.api_key;
    }
    if (Object.keys(patch).length === 0) {
      return {
        reply: setupCard("setup.title.current", settings, services.hasFallbackKey, actor),
      };
    }

    let saved: TenantSettings;
    try {
      saved = await services.tenants.update(tenant, patch);
    } catch (error) {
      if (error instanceof SecretsError) {
        throw new SetupError("setup.secrets", msg("refusal.setup.no_secrets", { setup: command("setup") }), {
          message: error.message,
          cause: error,
        });
      }
      throw error;
    }
    if ("apiKey" in patch) services.forgetTenant(actor);
    const language = chosenLanguage(saved.defaults);
    if (language) actor.tenantLocale = language;
    else delete actor.tenantLocale;
    return {
      reply: setupCard("setup.title.saved", saved, services.hasFallbackKey, actor),
    };
  },
});
