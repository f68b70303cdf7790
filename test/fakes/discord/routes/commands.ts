import type { APIApplicationCommand } from "discord-api-types/v10";
import { errors } from "../errors.js";
import { commandListRules, commandRules } from "../rules.js";
import type { World } from "../state.js";
import { assertRules, assertSchema, invalidFormBody } from "../validate.js";
import { json, noContent, type Route, type RouteContext } from "./types.js";

type CommandBody = Record<string, unknown> & { name: string; type?: number };

// Discord answers 50035 above this many commands in one bulk overwrite (100 slash + 15 user + 15 message).
const MAX_COMMANDS = 130;

/**
 * The OpenAPI description types `default_member_permissions` as an integer, but Discord's own
 * documentation and discord.js send a string of digits; checking the number it stands for keeps
 * the schema's range check without reporting every discord.js registration as invalid.
 */
function specQuirks(body: unknown): unknown {
  if (typeof body !== "object" || body === null) return body;
  const permissions = (body as Record<string, unknown>).default_member_permissions;
  return typeof permissions === "string" && /^\d+$/.test(permissions)
    ? { ...body, default_member_permissions: Number(permissions) }
    : body;
}

function scope({ world, params }: RouteContext): Map<string, APIApplicationCommand> {
  if (params.application_id !== world.applicationId) throw errors.missingAccess();
  const guildId = params.guild_id;
  if (guildId !== undefined && !world.guilds.get(guildId)?.members.has(world.botUser.id))
    throw errors.missingAccess();
  return world.commandScope(guildId);
}

function store(
  world: World,
  body: CommandBody,
  guildId: string | undefined,
  id: string,
): APIApplicationCommand {
  const permissions = body.default_member_permissions;
  const { name_localizations, description_localizations, options, contexts, integration_types, nsfw } = body;
  return {
    id,
    application_id: world.applicationId,
    version: world.ids.snowflake(),
    type: (body.type ?? 1) as APIApplicationCommand["type"],
    name: body.name,
    description: typeof body.description === "string" ? body.description : "",
    default_member_permissions: permissions == null ? null : String(permissions),
    nsfw: nsfw === true,
    ...(name_localizations ? { name_localizations } : {}),
    ...(description_localizations ? { description_localizations } : {}),
    ...(Array.isArray(options) && options.length ? { options } : {}),
    ...(guildId ? { guild_id: guildId } : { dm_permission: body.dm_permission !== false }),
    contexts: (contexts ?? null) as APIApplicationCommand["contexts"],
    integration_types: (integration_types ?? [0]) as APIApplicationCommand["integration_types"],
  } as APIApplicationCommand;
}

const sameCommand = (a: { name: string; type?: number }, b: { name: string; type?: number }) =>
  a.name === b.name && (a.type ?? 1) === (b.type ?? 1);

function bulkOverwrite(ctx: RouteContext) {
  const commands = scope(ctx);
  if (!Array.isArray(ctx.body)) {
    throw invalidFormBody({
      kind: "schema",
      schema: "ApplicationCommandUpdateRequestSchema[]",
      issues: [{ path: "", message: "expected an array of commands" }],
    });
  }
  const bodies = ctx.body.map(specQuirks);
  bodies.forEach((command, i) => {
    assertSchema("ApplicationCommandUpdateRequestSchema", command, [i]);
  });
  const typed = bodies as CommandBody[];
  assertRules([
    ...(typed.length > MAX_COMMANDS ? [{ path: "", message: `at most ${MAX_COMMANDS} commands` }] : []),
    ...commandListRules(typed),
  ]);
  // A bulk overwrite keeps the id of a command whose name and type stay, as Discord does.
  const previous = [...commands.values()];
  commands.clear();
  for (const body of typed) {
    const id = previous.find((c) => sameCommand(c, body))?.id ?? ctx.world.ids.snowflake();
    commands.set(id, store(ctx.world, body, ctx.params.guild_id, id));
  }
  return json([...commands.values()]);
}

function create(ctx: RouteContext) {
  const commands = scope(ctx);
  const body = specQuirks(ctx.body);
  assertSchema("ApplicationCommandCreateRequestSchema", body);
  assertRules(commandRules(body as CommandBody, ""));
  const typed = body as CommandBody;
  const existing = [...commands.values()].find((c) => sameCommand(c, typed));
  const command = store(ctx.world, typed, ctx.params.guild_id, existing?.id ?? ctx.world.ids.snowflake());
  commands.set(command.id, command);
  return json(command, existing ? 200 : 201);
}

function one(ctx: RouteContext): [Map<string, APIApplicationCommand>, APIApplicationCommand] {
  const commands = scope(ctx);
  const command = commands.get(ctx.params.command_id ?? "");
  if (!command) throw errors.unknownCommand();
  return [commands, command];
}

export const commandRoutes: Route[] = [
  "/applications/:application_id",
  "/applications/:application_id/guilds/:guild_id",
].flatMap((base): Route[] => [
  { method: "GET", path: `${base}/commands`, auth: "bot", handle: (ctx) => json([...scope(ctx).values()]) },
  { method: "PUT", path: `${base}/commands`, auth: "bot", handle: bulkOverwrite },
  { method: "POST", path: `${base}/commands`, auth: "bot", handle: create },
  { method: "GET", path: `${base}/commands/:command_id`, auth: "bot", handle: (ctx) => json(one(ctx)[1]) },
  {
    method: "DELETE",
    path: `${base}/commands/:command_id`,
    auth: "bot",
    handle: (ctx) => {
      const [commands, command] = one(ctx);
      commands.delete(command.id);
      return noContent;
    },
  },
]);
