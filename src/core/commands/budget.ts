import { z } from "zod";
import type { Budget } from "../../store/spend.js";
import type { Platform } from "../base/ports.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import { budgetsCard } from "../render/budgets.js";
import { SPEND_KINDS } from "../spend/data/kinds.js";
import { defineCommand } from "./define.js";
import { InputError } from "./errors.js";
import { flag, wholeNumber } from "./options.js";

/**
 * Who a budget binds, from what an admin typed: a mention, or one of the words for many people.
 * A Slack user group (`<!subteam^S…>`, or `group:S…`) is a role budget: on Slack an actor's
 * roleIds are the user groups they are in.
 */
export function budgetTarget(value: string, here: string, platform?: Platform): Pick<Budget, "scope" | "id"> {
  const text = value.trim();
  if (/^(here|this channel)$/i.test(text)) return { scope: "channel", id: here };
  if (/^(each|each person|everyone each|per person)$/i.test(text)) return { scope: "user", id: "*" };
  if (/^(everyone|all|server|workspace)$/i.test(text)) return { scope: "everyone", id: "" };
  const mention = /^<(@&|@!?|#)([\w-]+)(?:\|[^>]*)?>$/.exec(text);
  if (mention) {
    const scope = mention[1] === "@&" ? "role" : mention[1] === "#" ? "channel" : "user";
    return { scope, id: mention[2]! };
  }
  const group = /^<!subteam\^([A-Z0-9]{1,40})(?:\|[^>]*)?>$/.exec(text);
  if (group) return { scope: "role", id: group[1]! };
  const prefixed = /^(user|person|role|channel|group):([\w-]{1,40})$/i.exec(text);
  if (prefixed) {
    const word = prefixed[1]!.toLowerCase();
    const scope = word === "person" ? "user" : word === "group" ? "role" : (word as Budget["scope"]);
    return { scope, id: prefixed[2]! };
  }
  // A typed @group is plain text where Slack does not escape it (the budget's form): no id in it.
  const invalid = msg("refusal.budget.for_invalid", {
    for: "for",
    here: "here",
    each: "each",
    everyone: "everyone",
    value: text.slice(0, 40),
  });
  const typedGroup = platform === "slack" && /^@[\w.-]+$/.test(text);
  throw new InputError(
    "input.invalid_option",
    typedGroup
      ? msg("refusal.sentences", { first: invalid, second: msg("refusal.budget.for_group") })
      : invalid,
  );
}

/** Admins see and set this period's budgets; the service's reset date starts each period anew. */
export const budget = defineCommand({
  name: "budget",
  help: "Admins: see or set spending budgets per person, role, channel or everyone",
  main: "for",
  options: z.object({
    for: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe("A person, role, user group or channel mention, here, each (every person), or everyone")
      .optional(),
    credits: wholeNumber(0, 10_000_000, "Credits per period").optional(),
    jobs: wholeNumber(0, 100_000, "Jobs per period (of one kind with kind)").optional(),
    kind: z
      .enum(SPEND_KINDS)
      .describe("The kind of job the jobs limit counts (default: every kind)")
      .optional(),
    remove: flag("Remove the budgets set for this target").optional(),
  }),
  mentions: ["for"],
  adminOnly: true,
  ephemeral: true,
  usesService: false,
  formWhenBare: true,
  async run({ options, actor, conversation, services }) {
    const changing =
      options.credits !== undefined ||
      options.jobs !== undefined ||
      options.kind !== undefined ||
      options.remove;
    const t = translatorFor(readerLocale(actor));
    if (!changing) {
      const views = await services.spend.budgets({ ...actor, isAdmin: true }, conversation);
      return { reply: budgetsCard("listed", views, t) };
    }
    if (!options.for)
      throw new InputError(
        "input.missing_option",
        msg("refusal.budget.for_missing", { each: "each", everyone: "everyone" }),
      );
    if (options.kind && options.jobs === undefined) {
      throw new InputError(
        "input.invalid_option",
        msg("refusal.budget.kind_needs_jobs", {
          kind: "kind",
          jobs: "jobs",
          example: "jobs 10 kind cinematic",
        }),
      );
    }
    const target = budgetTarget(options.for, conversation.channelId, actor.platform);
    const same = (rule: Budget) => rule.scope === target.scope && rule.id === target.id;
    await services.spend.changeBudgets(actor, (rules) => {
      if (options.remove) return rules.filter((rule) => !same(rule));
      const next: Budget[] = [];
      if (options.credits !== undefined) next.push({ ...target, unit: "credits", limit: options.credits });
      if (options.jobs !== undefined)
        next.push({ ...target, unit: options.kind ?? "jobs", limit: options.jobs });
      const replaced = new Set(next.map((rule) => rule.unit));
      return [...rules.filter((rule) => !(same(rule) && replaced.has(rule.unit))), ...next];
    });
    const views = await services.spend.budgets({ ...actor, isAdmin: true }, conversation);
    return { reply: budgetsCard(options.remove ? "removed" : "saved", views, t) };
  },
});
