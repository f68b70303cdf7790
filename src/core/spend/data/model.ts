/**
 * The spending records and the view models built from them: plain data, shared by the ledger,
 * the budgets, the /usage report and its renderers. Nothing here imports a layer above.
 */

/**
 * One reading of an account's `credits_used` and per-type counters (`usage.<type>.used`), taken
 * by the bot: after a charge (the creation call's own `usage`, or a GET /api/usage right after a
 * call that answers without one) or as a probe (a GET /api/usage before a creation call, or any
 * other look at the account). Readings of one key and one period are what attribution works on.
 */
export interface Reading {
  /** credits_used at the moment of the reading. */
  creditsUsed: number;
  /** `used` of each per-type quota (ai_images, ai_actor_videos, cinematic_videos). */
  counters: Record<string, number>;
  /** The job whose charge this reading directly follows; absent for a probe. */
  jobId?: string;
  /** Epoch ms when the reading was taken: only breaks ties between equal readings. */
  at: number;
}

/** What attribution found for one job: its credits and the per-type counters its charge moved. */
export interface JobCharge {
  credits: number;
  counters: Record<string, number>;
}

export interface Attribution {
  /** By job id, for every job with a reading. */
  jobs: Map<string, JobCharge>;
  /** Spending between readings that no job's charge ends: outside the bot. */
  outside: JobCharge;
  /** credits_used of the first and the last reading (0 and 0 without readings). */
  from: number;
  to: number;
}

/** The account's figures of the period, as the usage card shows them. */
export interface SpendTotals {
  /** Credits the bot's jobs of this server/workspace cost this period. */
  credits: number;
  jobs: number;
  /** Credits spent on the same key outside the bot (the service's own app, other tools). */
  outside: number;
}

/** One job of the period, as the CSV export and the report's sums see it. */
export interface SpendRow {
  /** ISO 8601 time the job was started. */
  at: string;
  userId: string;
  /** The person's name on the platform; empty when it could not be read. */
  person: string;
  /** Where the job was asked (spend/origin.ts): a workflow step's person stands for it. */
  channelId: string;
  /** The channel's name, or what stands for it; empty when it could not be read. */
  channel: string;
  /** What was made: a `SpendKind` ("image", "avatar_video", "cinematic", "photo_avatar", "mockup", "mockup_video", "asset", "thumbnail"). */
  kind: string;
  /** The catalogue command that started it ("image.generate", "regenerate" follow-ups name theirs). */
  command: string;
  /** null while the cost is not known yet (no reading after its charge). */
  credits: number | null;
  /** Our job id. */
  jobId: string;
  /** The service's job id. */
  serviceJobId: string;
  /** The job's state now: queued, working, done, failed... */
  status: string;
}

export interface SpendShare {
  /** A person's user id, a job kind, or a day (YYYY-MM-DD), by the list it is in. */
  key: string;
  credits: number;
  jobs: number;
}

/**
 * Whom a budget binds, as a card names it in its reader's language (render/budgets.ts): the
 * viewer's own, each person (the highest standing shown to admins), a person, a Discord role, a
 * Slack user group, a channel or everyone; `name` is the platform's name of it, else its id.
 */
export interface BudgetHolder {
  of: "you" | "each" | "each_highest" | "person" | "role" | "group" | "channel" | "everyone";
  name?: string;
  /** The platform's word for a channel differs (Discord's French "salon", Slack's "canal"). */
  place: "discord" | "slack";
}

/** A budget as the usage card shows it to whoever it applies to (or to admins, all of them). */
export interface BudgetView {
  /**
   * "Your budget", "Role @Designers", "Channel #general", "Everyone together": the holder in
   * English, what a card not yet in its reader's language shows; cards say `holder` when given.
   */
  label: string;
  holder?: BudgetHolder;
  /** What is counted: credits, or jobs of one kind. */
  unit: "credits" | { jobs: string };
  used: number;
  limit: number;
}

/** What /usage shows of this period's spending, beside the account's own figures. */
export interface SpendReport {
  /** The period's last day as the service gives it (usage_reset_date), when known. */
  resetsOn?: string;
  /** The first day with spending recorded in the period (YYYY-MM-DD), when any. */
  since?: string;
  /** Whether everyone's spending is shown (admins), or only the viewer's own. */
  scope: "everyone" | "own";
  viewerId: string;
  totals: SpendTotals;
  /** Top people by credits, highest first (only the viewer for members). */
  people: SpendShare[];
  /** By job kind, highest first. */
  kinds: SpendShare[];
  /** By day, oldest first, every day from `since` to the last day with spending. */
  days: SpendShare[];
  /** Credits by day and job kind, for the chart's stacked bars. */
  daysByKind: { day: string; kind: string; credits: number }[];
  budgets: BudgetView[];
}
