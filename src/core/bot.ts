import type { Stores } from "../store/index.js";
import type { MediaClient } from "./api/client.js";
import { CatalogCache } from "./catalog-cache.js";
import type { Config } from "./config.js";
import { handleAction } from "./flows/actions.js";
import { handleAutocomplete } from "./flows/autocomplete.js";
import { handleCommand } from "./flows/command.js";
import type { Core } from "./flows/core.js";
import { createHooks } from "./flows/hooks.js";
import { createJobEngine, type JobEngineOptions } from "./jobs/engine.js";
import type { Logger } from "./log.js";
import type { ActionEvent, AutocompleteEvent, ChatAdapter, Choice, CommandEvent, Platform } from "./ports.js";
import { Tenancy } from "./tenancy.js";

/**
 * The core as the adapters see it: events in, cards out through the attached ChatAdapter. One
 * adapter per platform; jobs find theirs by platform, also jobs resumed after a restart.
 */

export interface BotOptions {
  /** MEDIA_API_KEY is the fallback of tenants without their own key. */
  config: Pick<Config, "media">;
  media: MediaClient;
  stores: Pick<Stores, "jobs" | "tenants" | "claims">;
  /** Polling policy and engine identity (tests shrink the policy). */
  engine?: Pick<JobEngineOptions, "policy" | "instanceId">;
  logger: Logger;
  clock?: { now(): number };
  /** Jobs one person may have running at once. Default 3. */
  jobLimit?: number;
  /** How long the avatar, voice and mockup lists are reused for autocomplete. Default 60 s. */
  pickListTtlMs?: number;
}

export interface Bot {
  attach(adapter: ChatAdapter): void;
  /** Answers through the adapter: a card, or a job's message that becomes the result. Never throws. */
  handleCommand(event: CommandEvent): Promise<void>;
  /** Buttons and selects of job messages. Never throws. */
  handleAction(event: ActionEvent): Promise<void>;
  /** Up to 25 choices, within Discord's 3 seconds (empty rather than late). */
  handleAutocomplete(event: AutocompleteEvent): Promise<Choice[]>;
  /** Resumes every unfinished job and undelivered result of the store. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_JOB_LIMIT = 3;

export function createBot(options: BotOptions): Bot {
  const { media: client, stores, logger } = options;
  const adapters = new Map<Platform, ChatAdapter>();
  const tenancy = new Tenancy(stores.tenants, options.config.media.apiKey);
  const adapter = (platform: Platform): ChatAdapter => {
    const found = adapters.get(platform);
    // Thrown inside the engine's hooks this means "later": the job waits for its adapter.
    if (!found) throw new Error(`no ${platform} adapter is attached`);
    return found;
  };
  const media: Core["media"] = async (tenant) => client.as(await tenancy.apiKey(tenant));

  const engine = createJobEngine({
    store: stores.jobs,
    claims: stores.claims,
    hooks: createHooks({ adapter, media, logger }),
    logger,
    ...(options.clock && { clock: options.clock }),
    ...options.engine,
  });

  const core: Core = {
    client,
    tenancy,
    engine,
    jobs: stores.jobs,
    claims: stores.claims,
    cache: new CatalogCache({
      ...(options.pickListTtlMs !== undefined && { ttlMs: options.pickListTtlMs }),
      ...(options.clock && { clock: () => options.clock!.now() }),
    }),
    logger,
    jobLimit: options.jobLimit ?? DEFAULT_JOB_LIMIT,
    adapter,
    media,
  };

  return {
    attach(chat) {
      adapters.set(chat.platform, chat);
    },
    handleCommand: (event) => handleCommand(core, event),
    handleAction: (event) => handleAction(core, event),
    handleAutocomplete: (event) => handleAutocomplete(core, event),
    start: () => engine.start(),
    stop: () => engine.stop(),
  };
}
