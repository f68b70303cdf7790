import type { z } from "zod";
import type { JobRecord } from "../../store/jobs.js";
import type { PreferenceStore } from "../../store/preferences.js";
import type { Budget } from "../../store/spend.js";
import type { TenantSettings, TenantStore } from "../../store/tenants.js";
import type { MediaApi, MediaClient } from "../api/client.js";
import type { JobKind, NormalizedStatus } from "../api/job-status.js";
import type { FilePart } from "../api/multipart.js";
import type { Usage } from "../api/schemas.js";
import type { Card } from "../base/cards.js";
import type { Said } from "../base/errors.js";
import type { Actor, Attachment, ConversationRef, Json, Message } from "../base/ports.js";
import type { PickItem, PickSource } from "../media/catalog-cache.js";
import type { Filled } from "../render/recipe.js";
import type { PanelSection } from "../render/settings.js";
import type { BudgetView, SpendReport, SpendRow } from "../spend/data/model.js";

export type { PickSource } from "../media/catalog-cache.js";

/** Where a pick list's entries come from: one of the service's lists, or the person's and the server's presets. */
export type PickList = PickSource | "presets";

/** An option that takes files: adapters build the attachment input from it, the core checks it. */
export interface FileSpec {
  /** <= 100 characters, like every option description. */
  description: string;
  /** Accepted MIME types. */
  types: readonly string[];
  maxBytes: number;
  required: boolean;
  /** How many files the option takes. */
  max: number;
}

/** An option as the adapters see it, read from the command's schema (catalogue.ts describeOptions). */
export interface OptionInfo {
  name: string;
  /** <= 100 characters: Discord option descriptions, Slack modal labels and hints. */
  description: string;
  type: "string" | "integer" | "number" | "boolean" | "file";
  required: boolean;
  /** The free text of the command (Slack: the words after the command). */
  main?: true;
  /** Allowed values: Discord choices, Slack static selects. */
  choices?: string[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  default?: string | number | boolean;
  /** Autocomplete (Discord) or external select (Slack) from this list. */
  pick?: PickList;
  /** Entered only in a modal, never as a visible option (API keys). */
  secret?: true;
  /** Takes a mention of a person, role (user group) or channel (`CommandDef.mentions`). */
  mention?: true;
  /** For `type: "file"`. */
  file?: FileSpec;
}

/** A job waiting its turn in its person's queue (flows/queue.ts). */
export interface WaitingJob {
  id: string;
  title: string;
  /** How many of the person's jobs start before it. */
  ahead: number;
}

/** What a command may use besides its options: the service and the bot's own records. */
export interface BotServices {
  client: MediaClient;
  tenants: Pick<TenantStore, "update">;
  /** Each person's defaults and presets. */
  preferences: Pick<PreferenceStore, "get" | "update">;
  /** Forgets the tenant's cached pick lists, after its API key changed. */
  forgetTenant(actor: Actor): void;
  listJobs(actor: Actor, limit: number): Promise<JobRecord[]>;
  /** The actor's jobs waiting their turn, first to start first. */
  listWaiting(actor: Actor): Promise<WaitingJob[]>;
  /** Everyone's jobs waiting their turn in the actor's server or workspace, oldest asked first. */
  listTenantWaiting(actor: Actor): Promise<(WaitingJob & { userId: string })[]>;
  /** Everyone's recent jobs in the actor's server or workspace, newest first. */
  listTenantJobs(actor: Actor, limit: number): Promise<JobRecord[]>;
  /** A link to the job's message, when it has one. */
  messageUrl(job: JobRecord): string | undefined;
  commands(): readonly AnyCommand[];
  /** A command's options as the adapters see them (read from its schema). */
  describe(command: AnyCommand): OptionInfo[];
  /** The default API key (MEDIA_API_KEY) is set and serves this tenant (MEDIA_API_KEY_TENANTS). */
  hasFallbackKey: boolean;
  spend: SpendServices;
  /** The settings panel of `actor` at `section` (default: their defaults), `notice` on top. */
  panel(
    actor: Actor,
    conversation: ConversationRef,
    show?: { section?: PanelSection; notice?: string },
  ): Promise<Card>;
}

/** This period's spending and budgets of the actor's server or workspace. */
export interface SpendServices {
  /**
   * The account (a reading under 30 s old: spend/account.ts) and this period's report as
   * `viewer` may see it (admins: everyone). Reads only, from the period's sums.
   */
  report(
    viewer: Actor,
    conversation: ConversationRef,
  ): Promise<{ account: Usage; report: SpendReport; period: string }>;
  /** Every job of the period, priced and named, for an admin's export. */
  rows(viewer: Actor): Promise<{ rows: SpendRow[]; period: string }>;
  /** The budgets as `viewer` may see them, at their standing in the period last seen. */
  budgets(viewer: Actor, conversation: ConversationRef): Promise<BudgetView[]>;
  changeBudgets(actor: Actor, change: (rules: Budget[]) => Budget[]): Promise<Budget[]>;
}

export interface CommandContext<O> {
  options: O;
  actor: Actor;
  conversation: ConversationRef;
  settings: TenantSettings;
  /** The options a preset or a default filled, and from where (kept by the job it starts). */
  filled: Filled;
  /** The service with the tenant's key; commands that need none get one that refuses every call. */
  media: MediaApi;
  /** The checked files by option name (type and size already verified). */
  attachments: Record<string, Attachment[]>;
  /** Streams the files attached to `option` into the service's upload flow; their media ids in order. */
  upload(option: string): Promise<string[]>;
  /** The files attached to `option`, opened for a multipart creation call (read once, streamed). */
  open(option: string): Promise<FilePart[]>;
  /** An entry of a pick list (already checked on submit): an avatar's own voice, a mockup's prompt. */
  lookup(source: PickSource, id: string): Promise<PickItem | undefined>;
  /** Largest file this conversation accepts; bigger results are posted as links. */
  uploadLimit: number;
  services: BotServices;
}

/** A job the command started at the service; the bot posts its message and tracks it. */
export interface StartedJob {
  kind: JobKind;
  serviceJobId: string;
  /** The job message's title, said in its requester's language when the job is recorded. */
  title: Said;
  /** What later steps need (regenerate, animate, naming the result). */
  inputs: { [key: string]: Json };
  /** Synchronous operations know their outcome at once: it is delivered without polling. */
  finished?: NormalizedStatus;
}

/** The creation call's JSON body, kept as a job's `inputs.request` for the follow-ups that repeat it. */
export type JobRequest = { [key: string]: Json };

/** A card to post (privately when the command is ephemeral), or a job to track. */
export type Outcome = { reply: Message } | { job: StartedJob };

export interface CommandDef<S extends z.ZodObject = z.ZodObject> {
  /** "group.sub", or one word for the commands without a group. */
  name: string;
  /** One line, <= 100 characters (Discord's description limit). */
  help: string;
  /** Every option `.describe()`d; file options are in `files`, not here. */
  options: S;
  /** The free-text option: the text after the command on Slack. */
  main?: keyof z.output<S> & string;
  files?: Record<string, FileSpec>;
  picks?: Partial<Record<keyof z.output<S> & string, PickList>>;
  /** Options entered only in a modal, never as a visible command option (API keys). */
  secret?: readonly (keyof z.output<S> & string)[];
  /**
   * Options that name a person, a role (a Slack user group) or a channel by its mention: Discord
   * offers pickers of them beside the typed option, Slack passes its escaped mentions
   * (`<@U…>`, `<!subteam^S…>`, `<#C…>`) through as they came, where other options get their text.
   */
  mentions?: readonly (keyof z.output<S> & string)[];
  adminOnly?: boolean;
  /**
   * Admin-only, yet also a person's own where they are their own tenant (a Discord DM with the
   * bot): setup, which stores their own key. Other admin-only commands stay with servers and workspaces.
   */
  personal?: true;
  /** Answers only the actor sees. */
  ephemeral?: boolean;
  /** Slack opens the command's form when it comes with nothing typed after it (commands with many optional settings). */
  formWhenBare?: true;
  /** The kind of job it starts: such commands count against the per-user job limit. */
  starts?: JobKind;
  /**
   * What its form's button says where the platform names it (Slack): what submitting does, such
   * as "Save". Default: "Start" for a command that starts a job, else "Submit".
   */
  submit?: string;
  /** False for commands that work without the service's API key (help, jobs, setup). */
  usesService?: boolean;
  run(ctx: CommandContext<z.output<S>>): Promise<Outcome>;
  /**
   * Starts a job from the request another job of this command kept as `inputs.request`: the same
   * (Regenerate, with what its options' declaration redraws, a seed), or changed (Remix).
   */
  again?(media: MediaApi, request: JobRequest): Promise<StartedJob>;
}

// biome-ignore lint/suspicious/noExplicitAny: the catalogue holds commands of every option shape
export type AnyCommand = CommandDef<any>;

/** Keeps the option types of one definition tied to its `run`. */
export function defineCommand<S extends z.ZodObject>(def: CommandDef<S>): CommandDef<S> {
  return def;
}

/**
 * What a form needs of a command: its options and how they are asked. Follow-up forms have one
 * too; their fields are typed by its options.
 */
export type FormDef<S extends z.ZodObject = z.ZodObject> = Pick<
  CommandDef<S>,
  | "name"
  | "help"
  | "options"
  | "main"
  | "files"
  | "picks"
  | "secret"
  | "mentions"
  | "starts"
  | "formWhenBare"
  | "submit"
>;
