import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Stores } from "../store/index.js";
import type { MediaClient } from "./api/client.js";
import { BotError } from "./base/errors.js";
import { DEFAULT_JOB_LIMIT, DEFAULT_QUEUE_LIMIT } from "./base/limits.js";
import type { Logger } from "./base/log.js";
import type {
  ActionEvent,
  Actor,
  AutocompleteEvent,
  ChatAdapter,
  Choice,
  CommandEvent,
  Platform,
} from "./base/ports.js";
import type { Config } from "./config/config.js";
import { type ActionForm, actionForm, type FormRequest, handleAction } from "./flows/actions.js";
import { handleAutocomplete } from "./flows/autocomplete.js";
import { botServices, handleCommand, startQueued } from "./flows/command.js";
import type { Core } from "./flows/core.js";
import { failureCard } from "./flows/failures.js";
import { createHooks } from "./flows/hooks.js";
import { createTurns, jobsNowOf } from "./flows/queue.js";
import { formLocale } from "./flows/reader.js";
import { linkingRefusedFiles } from "./flows/refused-files.js";
import { publishHome } from "./flows/settings.js";
import { StartIntents } from "./flows/start-intents.js";
import { tellRefusal } from "./flows/steps.js";
import { HomeRefresh, type HomeRefreshOptions } from "./home/refresh.js";
import { CommandRates } from "./intake/rates.js";
import { createJobEngine, type JobEngineOptions } from "./jobs/engine.js";
import { CatalogCache } from "./media/catalog-cache.js";
import { SpendAlerts } from "./spend/alerts.js";
import { Names } from "./spend/names.js";
import { Spending, type SpendingDeps } from "./spend/spending.js";
import { currentTap } from "./spend/tap.js";
import { Tenancy, type TenantKey, type TenantRef, tenantOf } from "./tenancy/tenancy.js";
import { scopedTo } from "./tenancy/tenant-view.js";

/**
 * The core as the adapters see it: events in, cards out through the attached ChatAdapter. One
 * adapter per platform; jobs find theirs by platform, also jobs resumed after a restart.
 */

export interface BotOptions {
  /**
   * MEDIA_API_KEY is the fallback of the tenants MEDIA_API_KEY_TENANTS names. Without `rates`,
   * gestures are not rate-limited (the app passes the configured ones).
   */
  config: Pick<Config, "media"> & Partial<Pick<Config, "rates">>;
  media: MediaClient;
  stores: Pick<
    Stores,
    | "jobs"
    | "tenants"
    | "claims"
    | "indexes"
    | "owned"
    | "keyv"
    | "spend"
    | "preferences"
    | "availability"
    | "queue"
  >;
  /** Polling policy, engine identity (tests shrink the policy) and the requests it yields to. */
  engine?: Pick<JobEngineOptions, "policy" | "instanceId" | "intake">;
  logger: Logger;
  clock?: { now(): number };
  /** Jobs one person may have running at once, unless the tenant set its own. Default 3. */
  jobLimit?: number;
  /** Jobs one person may have waiting their turn, unless the tenant set its own. Default 10. */
  queueLimit?: number;
  /** How long the avatar, voice and mockup lists are reused for autocomplete. Default 60 s. */
  pickListTtlMs?: number;
  /** How homes (Slack's App Home) are paced; tests shorten it. */
  homes?: Omit<HomeRefreshOptions, "logger">;
}

export interface Bot {
  attach(adapter: ChatAdapter): void;
  /** Answers through the adapter: a card, or a job's message that becomes the result. Never throws. */
  handleCommand(event: CommandEvent): Promise<void>;
  /** Buttons, selects and follow-up forms of job messages. Never throws. */
  handleAction(event: ActionEvent): Promise<void>;
  /**
   * The form a follow-up asks first, pre-filled from its job (a store read, fast enough for the
   * platforms' first response); undefined: no form, handle the click as it is.
   */
  actionForm(request: FormRequest): Promise<ActionForm | undefined>;
  /** The language a form opened for `actor` speaks (their choice, their platform's, their tenant's). Never throws. */
  formLocale(actor: Actor): Promise<string>;
  /** Up to 25 choices, within Discord's 3 seconds (empty rather than late). */
  handleAutocomplete(event: AutocompleteEvent): Promise<Choice[]>;
  /**
   * `actor` opened their home (Slack's App Home tab): it is published, and published again as
   * their jobs change for a while. Never throws.
   */
  openHome(actor: Actor): void;
  /** Resumes every unfinished job and undelivered result of the store. */
  start(): Promise<void>;
  /**
   * The graceful stop: new commands and clicks are answered "restarting, try again"; those under
   * way and the engine's deliveries get until the deadline; then the jobs are handed back.
   */
  stop(options?: { deadlineMs?: number }): Promise<void>;
}

export class RestartingError extends BotError {
  readonly code = "bot.restarting";
  constructor() {
    super("The bot is restarting: try again in a moment. Nothing was started or charged.");
  }
}

export { DEFAULT_JOB_LIMIT, DEFAULT_QUEUE_LIMIT };

export function createBot(options: BotOptions): Bot {
  const { media: client, stores, logger } = options;
  const adapters = new Map<Platform, ChatAdapter>();
  const { rates } = options.config;
  const { tenancy, mediaWith, media, remember } = serviceAccess(options);
  const adapter = (platform: Platform): ChatAdapter => {
    const found = adapters.get(platform);
    // Thrown inside the engine's hooks this means "later": the job waits for its adapter.
    if (!found) throw new Error(`no ${platform} adapter is attached`);
    return found;
  };

  const starts = new StartIntents(stores.keyv("starts"), stores.indexes);
  const spending = spendingOf(options, tenancy, mediaWith, adapter);
  client.onUsage((usage) => currentTap()?.heard(usage));
  // Publishes run once the core below exists: homes are opened and jobs move only after the start.
  const homes = new HomeRefresh((actor) => publishHome(core, botServices(core, tenantOf(actor)), actor), {
    logger,
    ...options.homes,
  });
  // Turns move only after the start, once the core below exists.
  const turns = createTurns(
    () => core,
    (...queued) => startQueued(core, ...queued),
  );
  const engine = createJobEngine({
    store: stores.jobs,
    claims: stores.claims,
    indexes: stores.indexes,
    hooks: createHooks({ adapter, media, remember, logger, changed: (job) => homes.changed(job.requester) }),
    logger,
    leftBehind: (id) => starts.tellLeftBehind(id, adapter, logger).then(() => turns.recover(id)),
    availability: stores.availability,
    ...(options.clock && { clock: options.clock }),
    ...options.engine,
  });

  const core: Core = {
    client,
    tenancy,
    engine,
    jobs: stores.jobs,
    claims: stores.claims,
    starts,
    spending,
    spend: stores.spend,
    names: new Names(adapter, logger),
    preferences: stores.preferences,
    cache: new CatalogCache({
      ...(options.pickListTtlMs !== undefined && { ttlMs: options.pickListTtlMs }),
      ...(options.clock && { clock: () => options.clock!.now() }),
    }),
    logger,
    rates: new CommandRates(rates ?? { userPerMinute: 0, tenantPerMinute: 0 }, () =>
      (options.clock ?? Date).now(),
    ),
    jobLimit: options.jobLimit ?? DEFAULT_JOB_LIMIT,
    queueLimit: options.queueLimit ?? DEFAULT_QUEUE_LIMIT,
    queue: stores.queue,
    turns,
    availability: stores.availability,
    adapter,
    media,
    mediaWith,
    remember,
  };

  let stopping = false;
  const underWay = new Set<Promise<void>>();
  /** Runs an event's handling, or, once stopping, tells its sender to come back in a moment. */
  const handle = <E extends CommandEvent | ActionEvent>(event: E, run: (e: E) => Promise<void>) => {
    if (stopping) return refuseWhileStopping(core, event);
    const work = run(event).finally(() => underWay.delete(work));
    underWay.add(work);
    return work;
  };

  return {
    attach(chat) {
      adapters.set(chat.platform, linkingRefusedFiles(chat, logger));
    },
    handleCommand: (event) => handle(event, (e) => handleCommand(core, e)),
    handleAction: (event) => handle(event, (e) => handleAction(core, e)),
    actionForm: (request) => actionForm(core, request),
    formLocale: (actor) => formLocale(core, actor),
    handleAutocomplete: (event) => handleAutocomplete(core, event),
    openHome: (actor) => {
      if (!stopping) homes.opened(actor);
    },
    start: () => engine.start().then(() => turns.start()),
    async stop({ deadlineMs = Number.POSITIVE_INFINITY } = {}) {
      stopping = true;
      homes.stop();
      const deadline = Date.now() + deadlineMs;
      // A command under way may be between its paid creation call and tracking the job: let it end.
      const handled = Promise.allSettled([...underWay]);
      // And the made jobs' spending lands before the store is closed.
      const done = handled.then(() => spending.settled());
      await (Number.isFinite(deadlineMs)
        ? Promise.race([done, sleep(deadlineMs, undefined, { ref: false })])
        : done);
      await turns.stop();
      await engine.stop({ deadlineMs: Math.max(0, deadline - Date.now()) });
    },
  };
}

/** The books of what tenants spend, with the alerts they post. */
function spendingOf(
  { stores, logger }: BotOptions,
  tenancy: Tenancy,
  mediaWith: SpendingDeps["mediaWith"],
  adapter: (platform: Platform) => ChatAdapter,
): Spending {
  const alerts = new SpendAlerts({
    claims: stores.claims,
    settings: (tenant) => tenancy.settings(tenant),
    adapter,
    logger,
    owner: `alerts:${process.pid}:${randomUUID()}`,
    jobsNow: (tenant) => jobsNowOf(stores.queue, tenant),
  });
  return new Spending({
    store: stores.spend,
    apiKey: (tenant) => tenancy.apiKey(tenant),
    mediaWith,
    alerts,
    logger,
    availability: stores.availability,
    rolesOf: (actor) => adapter(actor.platform).rolesOf?.(actor.tenantId, actor.userId),
  });
}

/** Each tenant's key and the service with it; the shared key sees only what its tenant made. */
function serviceAccess({ media: client, stores, logger, config }: BotOptions) {
  const tenancy = new Tenancy(stores.tenants, {
    key: config.media.apiKey,
    tenants: config.media.apiKeyTenants,
  });
  if (config.media.apiKey && config.media.apiKeyTenants.length === 0) {
    logger.warn(
      "MEDIA_API_KEY serves no server or workspace until MEDIA_API_KEY_TENANTS names them (or is *)",
    );
  }
  const mediaWith = (tenant: TenantRef, key: TenantKey | undefined) => {
    const api = client.as(key?.value);
    return key?.shared ? scopedTo(api, () => stores.owned.list(tenant)) : api;
  };
  const media: Core["media"] = async (tenant) => mediaWith(tenant, await tenancy.apiKey(tenant));
  const remember = (tenant: TenantRef, ids: readonly string[]) => stores.owned.add(tenant, ids);
  return { tenancy, mediaWith, media, remember };
}

async function refuseWhileStopping(core: Core, event: CommandEvent | ActionEvent): Promise<void> {
  const card = await failureCard(new RestartingError(), {
    logger: core.logger,
    context: {},
    reader: event.actor,
  });
  await tellRefusal(core.adapter(event.actor.platform), event.conversation, card).catch((error: unknown) =>
    core.logger.warn({ err: error }, "could not answer during the stop"),
  );
}
