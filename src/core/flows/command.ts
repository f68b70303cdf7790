import type { QueueEntry } from "../../store/queue.js";
import type { TenantSettings } from "../../store/tenants.js";
import { resultMediaId } from "../actions/follow-ups.js";
import type { MediaApi } from "../api/client.js";
import { BotError } from "../base/errors.js";
import { commandsTotal } from "../base/metrics.js";
import type { CommandEvent, ConversationRef, MessageRef } from "../base/ports.js";
import { COMMANDS, commandByName, describeOptions } from "../commands/catalogue.js";
import type { AnyCommand, BotServices, CommandContext } from "../commands/define.js";
import { InputError, noApiKey } from "../commands/errors.js";
import { withLinkedFiles } from "../commands/linked-files.js";
import { titleFrom } from "../commands/options.js";
import { jobKind } from "../commands/titles.js";
import { byOption, checkFiles, parseFilled } from "../commands/validate.js";
import { readerLocale } from "../i18n/locale.js";
import { msg, command as ref } from "../i18n/msg.js";
import { type Translator, translatorFor } from "../i18n/translator.js";
import { messageOf } from "../jobs/records.js";
import { openAll, uploadAll } from "../media/uploads.js";
import { notStartedCard, waitingCard } from "../render/queue.js";
import { isPersonal, type TenantRef, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import { admit, jobOf } from "./admit.js";
import type { Core } from "./core.js";
import { failureCard } from "./failures.js";
import { keepingFilled, layersFor } from "./preferences.js";
import { privacyOf, privately } from "./privacy.js";
import { type QueuedStart, reasonOf, tenantWaitingOf, waitingOf } from "./queue.js";
import { settingsPanel } from "./settings.js";
import { spendServices } from "./spend.js";
import { launch, limitsOf, startInPlace, takePlace } from "./start.js";
import { endStepAtStart, outsideStep, tellRefusal } from "./steps.js";

/**
 * One slash command, from raw options to its answer. Everything that can be refused is checked
 * before the first call that creates anything at the service: access, options, files, the ids
 * picked from lists, the API key, the person's job limit.
 */

/** Ids picked from lists may have been typed by hand: each must exist; a unique name becomes its id. */
async function checkPicks(
  core: Core,
  command: AnyCommand,
  options: Record<string, unknown>,
  tenant: TenantRef,
  media: MediaApi,
): Promise<void> {
  for (const [option, source] of Object.entries(command.picks ?? {})) {
    const value = options[option];
    if (typeof value !== "string" || !source || source === "presets") continue;
    const item = await core.cache.find(tenantKey(tenant), source, media, value);
    if (!item) {
      throw new InputError(
        "input.unknown_pick",
        msg("refusal.input.unknown_pick", {
          list: source,
          value,
          command: ref(source === "mockups" ? "mockup.list" : source),
        }),
      );
    }
    options[option] = item.id;
  }
}

/** What commands (and the settings panel's controls) use besides their options. */
export function botServices(core: Core, tenant: TenantRef): BotServices {
  const services: BotServices = {
    client: core.client,
    tenants: core.tenancy,
    preferences: core.preferences,
    forgetTenant: (actor) => core.cache.forget(tenantKey(tenantOf(actor))),
    listJobs: (actor, limit) => core.engine.listFor(actor, limit),
    listWaiting: (actor) => waitingOf(core, actor),
    listTenantWaiting: (actor) => tenantWaitingOf(core, actor),
    listTenantJobs: (actor, limit) => core.jobs.listByTenant(tenantOf(actor), limit),
    messageUrl: (job) => {
      const message = messageOf(job);
      // A private message, and a workflow step's job (no message at all), have no address anyone could open.
      const step = (job.conversation as { step?: unknown } | null)?.step !== undefined;
      if (!message?.messageId || message.data?.ephemeral || step) return undefined;
      return core.adapter(job.tenant.platform).messageUrl(message, job.tenant.tenantId);
    },
    commands: () => COMMANDS,
    describe: describeOptions,
    hasFallbackKey: core.tenancy.servesSharedKey(tenant),
    spend: spendServices(core),
    panel: (actor, conversation, show) => settingsPanel(core, services, actor, conversation, show),
  };
  return services;
}

/** What a command is given to run with: its options (by option name) and files, who and where. */
type CommandInput = Pick<CommandEvent, "options" | "attachments" | "links" | "actor" | "conversation">;

/**
 * The context `command` runs in, once its gesture is admitted: the options checked (a preset, the
 * person's and the tenant's defaults filling those left out), the files checked, the ids picked
 * from lists found, the tenant's service. A list's page or Show click builds its list's command
 * this way too.
 */
export async function commandContext<O extends Record<string, unknown>>(
  core: Core,
  command: AnyCommand,
  input: CommandInput,
  settings: TenantSettings,
  /** Media ids the service holds already for a file option (the bot's own results): not uploaded again. */
  reused: Record<string, string[]> = {},
): Promise<CommandContext<O>> {
  const { actor, conversation } = input;
  const tenant = tenantOf(actor);
  // Only what starts a job is filled: preset save (and setting a default) take settings as typed.
  const layers = command.starts ? await layersFor(core, actor, settings, input.options) : [];
  const { options, filled } = parseFilled(command, input.options, layers);
  const apiKey = await core.tenancy.apiKey(tenant);
  if (command.usesService !== false && !apiKey) throw noApiKey(isPersonal(actor));
  const api = core.mediaWith(tenant, apiKey);
  const attachments = checkFiles(command, await withLinkedFiles(api, input.attachments, input.links));
  await checkPicks(core, command, options, tenant, api);
  return {
    options: options as O,
    actor,
    conversation,
    settings,
    filled,
    media: api,
    attachments,
    upload: async (option) => reused[option] ?? uploadAll(api, attachments[option] ?? []),
    open: (option) => openAll(attachments[option] ?? []),
    lookup: (source, id) => core.cache.find(tenantKey(tenant), source, api, id),
    uploadLimit: core.adapter(actor.platform).uploadLimit(conversation),
    services: botServices(core, tenant),
  };
}

/**
 * The media ids of the files that are the bot's own results (`event.results`), by option: the
 * service holds them already. A job unknown here or without an image leaves its attachment to upload.
 */
async function reusedResults(core: Core, event: CommandEvent): Promise<Record<string, string[]>> {
  const reused: Record<string, string[]> = {};
  for (const [option, jobId] of Object.entries(event.results ?? {})) {
    const job = await jobOf(core, jobId, event.actor);
    const mediaId = job && resultMediaId(job);
    if (mediaId) reused[option] = [mediaId];
  }
  return reused;
}

/**
 * What a starting command does once its place is taken: its creation call, then its job's message
 * (the queued message, when it waited). Undefined when a cancel came first.
 */
async function startJob(
  core: Core,
  command: AnyCommand,
  ctx: CommandContext<Record<string, unknown>>,
  place: { id: string; where: ConversationRef; note?: string | undefined; message?: MessageRef | undefined },
): Promise<void> {
  const { actor, conversation } = ctx;
  const adapter = core.adapter(actor.platform);
  const { id, where, note, message } = place;
  await startInPlace(core, { command: command.name, actor, conversation: where }, id, async (recorded) => {
    const outcome = await command.run(ctx);
    if ("reply" in outcome) {
      await adapter.post(conversation, outcome.reply, { ephemeral: command.ephemeral ?? false });
      return;
    }
    const job = await launch(core, adapter, {
      command: command.name,
      started: keepingFilled(outcome.job, ctx.filled),
      actor,
      conversation: where,
      id,
      recorded,
      ...(message && { message }),
      ...(note && { note }),
    });
    if (conversation.step === "start") await endStepAtStart(adapter, conversation, job.id, core.logger);
  });
}

/** The title a queued job's message shows before its command names it: its kind, and its prompt. */
function queuedTitle(command: AnyCommand, options: Record<string, unknown>, t: Translator): string {
  const [family = command.name] = command.name.split(".");
  const kind = t.say(
    jobKind(family, `${family[0]?.toUpperCase() ?? ""}${family.slice(1).replaceAll("_", " ")}`),
  );
  return typeof options.prompt === "string" && options.prompt.trim()
    ? t.text("job.title", { kind, name: titleFrom(options.prompt) })
    : kind;
}

/** The key of a queued job's waiting message: posted again under it, the one posted before is found. */
const waitingKey = (id: string) => `${id}:waiting`;

/**
 * A starting command past its person's running limit waits its turn: its message says so at once
 * (with a Cancel button) and becomes the job's message when it starts. A command with files
 * attached cannot wait (the platforms' files are read while the gesture lasts): it is refused as
 * before, when no place is free.
 */
async function placeOrQueue(
  core: Core,
  command: AnyCommand,
  event: CommandEvent,
  ctx: CommandContext<Record<string, unknown>>,
  settings: TenantSettings,
  shown: { where: ConversationRef; note?: string | undefined },
): Promise<void> {
  const { actor, conversation } = event;
  const limits = await limitsOf(core, tenantOf(actor), settings);
  const files = Object.values(event.attachments).some((list) => list.length > 0);
  const locale = readerLocale(actor);
  const title = queuedTitle(command, event.options, translatorFor(locale));
  const payload: QueuedStart = {
    command: command.name,
    options: event.options as QueuedStart["options"],
    ...(event.links && { links: event.links }),
    ...(event.results && { results: event.results }),
    actor,
    conversation,
    where: shown.where,
    title,
    ...(shown.note && { note: shown.note }),
  };
  const place = await takePlace(core, actor, limits, files ? undefined : JSON.stringify(payload));
  if (place.ahead === undefined) return startJob(core, command, ctx, { id: place.id, ...shown });
  const adapter = core.adapter(actor.platform);
  const view = { id: place.id, title, ...(shown.note && { note: shown.note }), locale };
  const message = await adapter
    .post(shown.where, waitingCard(view, place.ahead), { findKey: waitingKey(place.id) })
    .catch((error: unknown) => {
      core.logger.warn({ err: error, command: command.name }, "queued job's message not posted");
      return undefined;
    });
  await core.queue.ready(place.id, message ? JSON.stringify(message) : null);
  if (!message) {
    await adapter
      .post(conversation, waitingCard(view, place.ahead), { ephemeral: true })
      .catch(() => undefined);
  }
  // A place may have freed while the message was posted (nobody starts a job still being prepared).
  core.turns.dispatch(tenantOf(actor));
}

/** A queued command's turn: checked again as its person stands now (access, key, options), then started. */
export async function startQueued(
  core: Core,
  entry: QueueEntry,
  queued: QueuedStart,
  recorded: MessageRef | undefined,
): Promise<void> {
  const { actor, conversation, where } = queued;
  const tenant = tenantOf(actor);
  const adapter = core.adapter(actor.platform);
  const view = {
    id: entry.id,
    title: queued.title,
    ...(queued.note && { note: queued.note }),
    locale: readerLocale(actor),
  };
  // None on record: a crash may have come between its waiting message's post and its record.
  // Posted again under its key, that message is found (or posted now): the job has one message.
  const message =
    recorded ??
    (await adapter
      .post(where, waitingCard(view, 0), { findKey: waitingKey(entry.id) })
      .catch((error: unknown) => {
        core.logger.warn({ err: error, jobId: entry.id }, "queued job's message not posted");
        return undefined;
      }));
  try {
    const command = commandByName(queued.command);
    if (!command)
      throw new InputError(
        "input.unknown_command",
        msg("refusal.input.command_gone", { command: queued.command }),
      );
    const settings = await core.tenancy.settings(tenant);
    core.tenancy.checkAccess(actor, conversation, settings, command);
    const event: CommandEvent = {
      command: command.name,
      options: queued.options,
      attachments: {},
      actor,
      conversation,
      ...(queued.links && { links: queued.links }),
      ...(queued.results && { results: queued.results }),
    };
    const ctx = await commandContext(core, command, event, settings, await reusedResults(core, event));
    await startJob(core, command, ctx, { id: entry.id, where, note: queued.note, message });
    commandsTotal.inc({ command: command.name, outcome: "ok" });
  } catch (error) {
    await core.turns.refused(entry.id, tenant, error);
    if (await core.engine.get(entry.id)) return;
    const card = notStartedCard(view, reasonOf(error, translatorFor(view.locale)));
    await (message ? adapter.edit(message, card) : adapter.post(where, card)).catch((cause: unknown) =>
      core.logger.warn({ err: cause, jobId: entry.id }, "refused queued job not told"),
    );
  }
}

export async function handleCommand(core: Core, gesture: CommandEvent): Promise<void> {
  // Option names are read once, here: what follows reads them as the options name them.
  const event = { ...gesture, options: byOption(gesture.options) };
  const { actor, conversation } = event;
  const adapter = core.adapter(actor.platform);
  const tenant = tenantOf(actor);
  let media: MediaApi | undefined;
  try {
    const command = commandByName(event.command);
    if (!command) {
      throw new InputError(
        "input.unknown_command",
        msg("refusal.input.no_such_command", { command: event.command, help: ref("help") }),
      );
    }
    const settings = await admit(core, { kind: event.entry ?? "command", actor, conversation, command });
    const ctx = await commandContext(core, command, event, settings, await reusedResults(core, event));
    media = ctx.media;
    const privacy = privacyOf(actor, event.options, ctx.options.delivery, settings);
    // A step that ends once the job is started leaves the job to its person's DM.
    const base = conversation.step === "start" ? outsideStep(conversation) : conversation;
    const where = privacy.private ? privately(base, base.channelId) : base;
    if (command.starts) {
      await placeOrQueue(core, command, event, ctx, settings, { where, note: privacy.note });
    } else {
      const outcome = await command.run(ctx);
      if ("reply" in outcome) {
        await adapter.post(conversation, outcome.reply, { ephemeral: command.ephemeral ?? false });
      }
    }
    commandsTotal.inc({ command: command.name, outcome: "ok" });
  } catch (error) {
    // A name outside the catalogue is counted as "unknown": labels stay a closed set.
    commandsTotal.inc({
      command: commandByName(event.command) ? event.command : "unknown",
      outcome: error instanceof BotError ? error.code : "internal",
    });
    // Option values stay out of the log: setup's carry an API key.
    const card = await failureCard(error, {
      media,
      logger: core.logger,
      context: { command: event.command, tenant },
      reader: actor,
    });
    await tellRefusal(adapter, conversation, card).catch((cause: unknown) =>
      core.logger.error({ err: cause, command: event.command }, "could not answer"),
    );
  }
}
