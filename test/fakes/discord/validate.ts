import {
  ApplicationCommandAutocompleteCallbackRequestSchema,
  ApplicationCommandCreateRequestSchema,
  ApplicationCommandUpdateRequestSchema,
  CreateMessageInteractionCallbackRequestSchema,
  CreatePrivateChannelRequestSchema,
  IncomingWebhookRequestPartialSchema,
  IncomingWebhookUpdateRequestPartialSchema,
  MessageCreateRequestSchema,
  MessageEditRequestPartialSchema,
  ModalInteractionCallbackRequestSchema,
  UpdateMessageInteractionCallbackRequestSchema,
} from "discord-api-spec/zod";
import { en } from "zod/locales";
import type { ZodMiniType } from "zod/mini";
import { watched } from "../watch.js";
import { DiscordHttpError, type ErrorDetails, type Rejection } from "./errors.js";

/** The request bodies the fake checks, by the discord-api-spec schema name used in reports. */
const requestSchemas = {
  ApplicationCommandAutocompleteCallbackRequestSchema,
  ApplicationCommandCreateRequestSchema,
  ApplicationCommandUpdateRequestSchema,
  CreateMessageInteractionCallbackRequestSchema,
  CreatePrivateChannelRequestSchema,
  IncomingWebhookRequestPartialSchema,
  IncomingWebhookUpdateRequestPartialSchema,
  MessageCreateRequestSchema,
  MessageEditRequestPartialSchema,
  ModalInteractionCallbackRequestSchema,
  UpdateMessageInteractionCallbackRequestSchema,
} satisfies Record<string, ZodMiniType>;

export type SchemaName = keyof typeof requestSchemas;

export interface Issue {
  /** Dotted path into the body, e.g. `data.components.0.components.0.custom_id`. */
  path: string;
  message: string;
}

type Path = (string | number)[];
interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: ZodIssueLike[][];
}

// zod/mini carries no messages of its own; the English map per call avoids changing zod's global config.
const localeError = en().localeError;

export function checkSchema(schema: ZodMiniType, body: unknown, prefix: Path = []): Issue[] {
  const result = schema.safeParse(body, { error: localeError });
  if (result.success) return [];
  return flatten(result.error.issues as unknown as ZodIssueLike[], prefix);
}

/**
 * zod reports a failed union as one issue holding every branch's issues. Report the likeliest
 * branch: not one refusing the value outright (wrong `type` tag, wrong kind of value), and of the
 * rest the one with the fewest issues; so a 101-character custom_id reads as that, not as "no
 * union member matched".
 */
function flatten(issues: ZodIssueLike[], prefix: Path): Issue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path.map((key) => (typeof key === "symbol" ? String(key) : key))];
    if (issue.code !== "invalid_union" || !issue.errors?.length) {
      return [{ path: path.join("."), message: issue.message }];
    }
    const plausible = issue.errors.filter(
      (branch) =>
        !branch.some(
          (inner) => inner.path.length === 0 || (inner.path.length === 1 && inner.path[0] === "type"),
        ),
    );
    if (!plausible.length) {
      return [{ path: path.join("."), message: "matches none of the allowed shapes (check `type`)" }];
    }
    return flatten(
      plausible.reduce((a, b) => (b.length < a.length ? b : a)),
      path,
    );
  });
}

/** The 400 / 50035 "Invalid Form Body" Discord answers, carrying the issues for the fake's report. */
export function invalidFormBody(rejection: Rejection): DiscordHttpError {
  return new DiscordHttpError(400, 50035, "Invalid Form Body", toErrorDetails(rejection.issues), rejection);
}

/** Throws Discord's answer to a body the named schema refuses. */
export function assertSchema(name: SchemaName, body: unknown, prefix: Path = []): void {
  // Commands' registration and DM channels show no text of the bot's own in chat.
  if (!name.startsWith("Application") && name !== "CreatePrivateChannelRequestSchema") {
    watched.shown("discord", name, body);
  }
  const issues = checkSchema(requestSchemas[name], body, prefix);
  watched.refused("discord", name, issues.map(issueText));
  if (issues.length) throw invalidFormBody({ kind: "schema", schema: name, issues });
}

/** Throws Discord's answer to a body that breaks a rule the schemas do not encode. */
export function assertRules(issues: Issue[]): void {
  watched.refused("discord", "rules", issues.map(issueText));
  if (issues.length) throw invalidFormBody({ kind: "rule", issues });
}

const issueText = (issue: Issue) => `${issue.path}: ${issue.message}`;

function toErrorDetails(issues: Issue[]): ErrorDetails {
  const root: Record<string, unknown> = {};
  for (const issue of issues) {
    let node = root;
    for (const key of issue.path ? issue.path.split(".") : ["_body"]) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node._errors ??= [];
    (node._errors as { code: string; message: string }[]).push({
      code: "BASE_TYPE_INVALID",
      message: issue.message,
    });
  }
  return root as ErrorDetails;
}
