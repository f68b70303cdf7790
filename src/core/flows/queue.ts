import { z } from "zod";
import { conversationRef, json, messageRef, platform } from "../../common/types.js";
import { QUEUED, type QueueEntry, type QueueStore } from "../../store/queue.js";
import type { Card } from "../base/cards.js";
import { BotError } from "../base/errors.js";
import type { ActionEvent, Actor, ChatAdapter, ConversationRef, MessageRef } from "../base/ports.js";
import type { WaitingJob } from "../commands/define.js";
import { ActionError } from "../commands/errors.js";
import { readerLocale } from "../i18n/locale.js";
import { command, msg } from "../i18n/msg.js";
import { english, type Translator, translatorFor } from "../i18n/translator.js";
import type { JobsNow } from "../render/alerts.js";
import type { JobView } from "../render/job.js";
import { cancelledCard, interruptedCard, waitingCard } from "../render/queue.js";
import { type TenantRef, tenantKey, tenantOf } from "../tenancy/tenancy.js";
import type { Core } from "./core.js";
import { limitsOf } from "./start.js";
import type { Turns } from "./turns.js";

/**
 * The jobs waiting their turn, as the bot moves them: a running place frees (a job ended, a start
 * was refused or cancelled), the tenant's next entry is picked (the store decides whose turn it
 * is, round-robin across people) and started with its own creation call, and the messages of
 * those still waiting say where they now stand. The store holds the queue, so a restart (or
 * another replica) carries on from it: `recover` answers for the entries of a process that died
 * mid-start, `sweep` gives back the places of jobs whose end nobody announced.
 */

/** What a queued command starts with when its turn comes: the command as it was asked. */
export const queuedStart = z.object({
  command: z.string().min(1),
  options: z.record(z.string(), json),
  links: z.record(z.string(), z.array(z.string())).optional(),
  results: z.record(z.string(), z.string()).optional(),
  actor: z.object({
    platform,
    tenantId: z.string().min(1),
    userId: z.string().min(1),
    isAdmin: z.boolean(),
    roleIds: z.array(z.string()),
    rolesUnknown: z.literal(true).optional(),
    // The job's cards speak its requester's language, from its waiting card on.
    locale: z.string().optional(),
    placeLocale: z.string().optional(),
  }),
  /** Where it was asked (its refusals go there), and where its job shows (`where`: privately or not). */
  conversation: conversationRef,
  where: conversationRef,
  title: z.string(),
  note: z.string().optional(),
});
export type QueuedStart = z.infer<typeof queuedStart>;

/** Starts a picked entry; resolves once it started or ended (it tells its person itself). */
export type StartQueued = (
  entry: QueueEntry,
  start: QueuedStart,
  message: MessageRef | undefined,
) => Promise<void>;

/** A job in these states holds its running place. */
const RUNNING: ReadonlySet<string> = new Set(["queued", "working", "retrying"]);

/** How often the places of jobs that ended unannounced (a crash between the outcome and its news) are looked for. */
export const SWEEP_MS = 30_000;

const messageOf = (entry: QueueEntry): MessageRef | undefined => {
  if (!entry.message) return undefined;
  const parsed = messageRef.safeParse(JSON.parse(entry.message));
  return parsed.success ? parsed.data : undefined;
};

const startOf = (entry: QueueEntry): QueuedStart | undefined => {
  try {
    const parsed = queuedStart.safeParse(JSON.parse(entry.payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

const viewOf = (entry: QueueEntry, start: QueuedStart | undefined): JobView => {
  const locale = readerLocale(start?.actor);
  return {
    id: entry.id,
    title: start?.title ?? translatorFor(locale).text("job.untitled"),
    ...(start?.note && { note: start.note }),
    locale,
  };
};

/** The words a refused start is told with, in `t`'s language: its own for the bot's refusals. */
export const reasonOf = (error: unknown, t: Translator = english()) =>
  error instanceof BotError
    ? typeof error.said === "string"
      ? error.said
      : t.say(error.said)
    : t.text("queue.reason_internal");

/** The running places of this process's tenants, moved on as jobs end. */
class QueueTurns implements Turns {
  readonly #underWay = new Set<Promise<unknown>>();
  /** Tenants being dispatched, and those asked again meanwhile: one dispatch loop per tenant here. */
  readonly #dispatching = new Set<string>();
  readonly #again = new Set<string>();
  /** Places given back (outcomes) since the tenant's last picks: how many picks the next round asks at once. */
  readonly #freed = new Map<string, number>();
  /** The entries this process is starting: never taken for a dead process's (recover). */
  readonly #working = new Set<string>();
  /** Entries asked for since then were not a former process's under the same name. */
  readonly #since = Date.now();
  /** The last work given under each key (inOrder). */
  readonly #chains = new Map<string, Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly core: () => Core,
    private readonly startQueued: StartQueued,
  ) {}

  #own(work: Promise<unknown>, what: string): void {
    const tracked = work
      .catch((error: unknown) => this.core().logger.warn({ err: error }, what))
      .finally(() => this.#underWay.delete(tracked));
    this.#underWay.add(tracked);
  }

  async #edit(platform: TenantRef["platform"], message: MessageRef | undefined, card: Card): Promise<void> {
    if (!message) return;
    await this.core()
      .adapter(platform)
      .edit(message, card)
      .catch((error: unknown) => this.core().logger.warn({ err: error }, "queued job's message not edited"));
  }

  async show(tenant: TenantRef, userId: string): Promise<void> {
    const waiting = await this.core().queue.queuedOf(tenant, userId);
    await Promise.all(
      waiting.map((entry, ahead) =>
        this.#edit(tenant.platform, messageOf(entry), waitingCard(viewOf(entry, startOf(entry)), ahead)),
      ),
    );
  }

  async #dispatchNow(tenant: TenantRef, freed: number): Promise<void> {
    const c = this.core();
    const limits = await limitsOf(c, tenant);
    const moved = new Set<string>();
    const pick = () => c.queue.pick(tenant, limits, c.engine.liveness.id);
    // As many picks at once as places were given back: each is one atomic step of the store, so
    // together they never take more than the free places, and they reach the store one after the
    // other instead of one per turn of an event loop busy with a burst of commands (20 places
    // freed together were picked over 1.2 s, bench/results/queue.md). Then one at a time, until
    // none is left to pick.
    let took = 0;
    try {
      for (let asked = Math.max(1, freed); ; asked = 1) {
        const answers = await Promise.allSettled(Array.from({ length: asked }, pick));
        const picked = answers
          .flatMap((answer) => (answer.status === "fulfilled" && answer.value ? [answer.value] : []))
          // A person's entries in their order, whichever pick answered first.
          .sort((a, b) => a.seq - b.seq);
        // Those picked are started even when another pick failed: each is this process's to start.
        for (const entry of picked) await this.#startPicked(tenant, entry, moved);
        took += picked.length;
        const failed = answers.find((answer) => answer.status === "rejected");
        if (failed) throw failed.reason;
        if (picked.length < asked) break;
      }
    } finally {
      // Places given back meanwhile that these picks took ask no picks of the next round.
      this.#taken(tenant, took - freed);
      // Not awaited: the next picks need not wait for the waiting messages' edits (a platform's
      // pacing). One person's are edited in order, so an older place never shows last.
      for (const userId of moved)
        this.#own(
          this.inOrder(`shown:${tenantKey(tenant)}:${userId}`, () => this.show(tenant, userId)),
          "waiting messages not edited",
        );
    }
  }

  #taken(tenant: TenantRef, places: number): void {
    if (places <= 0) return;
    const key = tenantKey(tenant);
    const left = (this.#freed.get(key) ?? 0) - places;
    if (left > 0) this.#freed.set(key, left);
    else this.#freed.delete(key);
  }

  async #startPicked(tenant: TenantRef, entry: QueueEntry, moved: Set<string>): Promise<void> {
    const start = startOf(entry);
    moved.add(entry.userId);
    if (!start) {
      await this.core().queue.end(entry.id, "refused", "its request could not be read back.", Date.now());
      return;
    }
    // A person's picked entries are readied (their access, options, key read again) one after
    // the other, so that they reach the service in their order.
    const person = `queued:${tenantKey(tenant)}:${entry.userId}`;
    this.#own(
      this.holding(entry.id, () =>
        this.inOrder(person, () => this.startQueued(entry, start, messageOf(entry))),
      ),
      "queued job not started",
    );
  }

  dispatch(tenant: TenantRef): void {
    if (this.#stopped) return;
    const key = tenantKey(tenant);
    if (this.#dispatching.has(key)) {
      this.#again.add(key);
      return;
    }
    this.#dispatching.add(key);
    const loop = async () => {
      try {
        do {
          this.#again.delete(key);
          const freed = this.#freed.get(key) ?? 0;
          this.#freed.delete(key);
          await this.#dispatchNow(tenant, freed);
        } while (this.#again.has(key) && !this.#stopped);
      } finally {
        this.#dispatching.delete(key);
      }
    };
    this.#own(loop(), "queue not dispatched");
  }

  inOrder<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.#chains.get(key) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#chains.set(key, settled);
    void settled.then(() => {
      if (this.#chains.get(key) === settled) this.#chains.delete(key);
    });
    return run;
  }

  async refused(id: string, tenant: TenantRef, why: unknown): Promise<void> {
    const c = this.core();
    // A job recorded before the fault runs: its place stays its own.
    if (await c.engine.get(id)) return void (await c.queue.started(id));
    await c.queue.end(id, "refused", reasonOf(why), Date.now());
    this.dispatch(tenant);
  }

  async holding<T>(id: string, work: () => Promise<T>): Promise<T> {
    this.#working.add(id);
    try {
      return await work();
    } finally {
      this.#working.delete(id);
    }
  }

  async recover(instanceId: string): Promise<void> {
    const c = this.core();
    const mine = instanceId === c.engine.liveness.id;
    for (const entry of await c.queue.ownedBy(instanceId)) {
      // This process's own, under way: not a former process's (a restart under the same name).
      if (this.#working.has(entry.id) || (mine && entry.at >= this.#since)) continue;
      if (entry.state !== "calling") await c.queue.requeue(entry.id, instanceId);
      // Its creation call may have been made: never made again. A recorded job runs on.
      else if (await c.engine.get(entry.id)) await c.queue.started(entry.id);
      else if (await c.queue.end(entry.id, "interrupted", "the bot restarted as it started.", Date.now())) {
        await this.#edit(
          entry.tenant.platform,
          messageOf(entry),
          interruptedCard(viewOf(entry, startOf(entry))),
        );
      }
      this.dispatch(entry.tenant);
    }
  }

  /** Gives back those of `slots` whose job is over (or was never recorded, nor is starting). */
  async #free(tenant: TenantRef, slots: readonly { id: string }[]): Promise<number> {
    const c = this.core();
    const jobs = new Map((await c.jobs.getMany(slots.map((s) => s.id))).map((job) => [job.id, job]));
    const over: string[] = [];
    for (const slot of slots) {
      const job = jobs.get(slot.id);
      if (job ? !RUNNING.has(job.state) : !(await c.queue.get(slot.id))) over.push(slot.id);
    }
    await c.queue.release(tenant, over);
    return over.length;
  }

  async freeEnded(tenant: TenantRef, userId: string, limit: number): Promise<void> {
    const held = (await this.core().queue.slots(tenant)).filter((slot) => slot.userId === userId);
    if (held.length >= limit && (await this.#free(tenant, held)) > 0) this.dispatch(tenant);
  }

  async sweep(): Promise<void> {
    for (const tenant of await this.core().queue.tenants()) {
      await this.#free(tenant, await this.core().queue.slots(tenant));
      this.dispatch(tenant);
    }
  }

  start(): void {
    const c = this.core();
    // Given back once the service said the job is over, not once its result is posted: the next
    // start need not wait for an upload. The delivery is the engine's, durable on its own.
    c.engine.onOutcome((job) => {
      this.#own(
        c.queue.release(job.tenant, [job.id]).then(() => {
          const key = tenantKey(job.tenant);
          this.#freed.set(key, (this.#freed.get(key) ?? 0) + 1);
          this.dispatch(job.tenant);
        }),
        "running place not given back",
      );
    });
    this.#own(this.sweep(), "queue not swept");
    this.#timer = setInterval(() => this.#own(this.sweep(), "queue not swept"), SWEEP_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    while (this.#underWay.size > 0) await Promise.allSettled([...this.#underWay]);
  }
}

export function createTurns(core: () => Core, startQueued: StartQueued): Turns {
  return new QueueTurns(core, startQueued);
}

/** The person's jobs waiting their turn, first to start first. */
export async function waitingOf(core: Core, actor: Actor): Promise<WaitingJob[]> {
  const waiting = await core.queue.queuedOf(tenantOf(actor), actor.userId);
  return waiting.map((entry, ahead) => ({ id: entry.id, title: viewOf(entry, startOf(entry)).title, ahead }));
}

/** How many of a tenant's waiting jobs an admin's list reads. */
const TENANT_WAITING_READ = 200;

/** The tenant's jobs holding a running place, and those waiting their turn (the spending alerts show both). */
export async function jobsNowOf(
  queue: Pick<QueueStore, "slots" | "recentOfTenant">,
  tenant: TenantRef,
): Promise<JobsNow> {
  const [slots, recent] = await Promise.all([
    queue.slots(tenant),
    queue.recentOfTenant(tenant, TENANT_WAITING_READ),
  ]);
  return { running: slots.length, waiting: recent.filter((entry) => QUEUED.has(entry.state)).length };
}

/** Everyone's jobs waiting their turn in the actor's tenant, oldest asked first, with their place in their person's queue. */
export async function tenantWaitingOf(
  core: Core,
  actor: Actor,
): Promise<(WaitingJob & { userId: string })[]> {
  const entries = (await core.queue.recentOfTenant(tenantOf(actor), TENANT_WAITING_READ))
    .filter((entry) => QUEUED.has(entry.state))
    .sort((a, b) => a.seq - b.seq);
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const ahead = seen.get(entry.userId) ?? 0;
    seen.set(entry.userId, ahead + 1);
    return { id: entry.id, title: viewOf(entry, startOf(entry)).title, ahead, userId: entry.userId };
  });
}

/**
 * The Cancel of a queued job (its message's button, the jobs list, the Home): its requester or an
 * admin. The store decides it against the start in one step: cancelled (no creation call will be
 * made), or it had already started (it runs on), never both; a second click finds it cancelled.
 */
export async function cancelQueued(core: Core, event: ActionEvent): Promise<void> {
  const adapter = core.adapter(event.actor.platform);
  const entry = await core.queue.get(event.jobId);
  const tenant = tenantOf(event.actor);
  if (!entry || tenantKey(entry.tenant) !== tenantKey(tenant)) {
    if (await core.engine.get(event.jobId)) throw alreadyStarted();
    throw new ActionError("action.unknown_job", msg("queue.unknown", { jobs: command("jobs") }));
  }
  if (entry.userId !== event.actor.userId && !event.actor.isAdmin) {
    throw new ActionError("action.not_requester", msg("refusal.access.cancel_queued"));
  }
  const answer = await core.queue.cancel(entry.id, Date.now());
  const view = viewOf(entry, startOf(entry));
  switch (answer) {
    case "cancelled":
      await showCancelled(core, adapter, messageOf(entry), cancelledCard(view), event.conversation);
      core.turns.dispatch(entry.tenant);
      await core.turns.show(entry.tenant, entry.userId);
      return;
    case "already":
      await adapter.post(
        event.conversation,
        { text: translatorFor(readerLocale(event.actor)).text("queue.already_cancelled") },
        { ephemeral: true },
      );
      return;
    case "ended":
      throw new ActionError("action.ended", msg("queue.ended"));
    default:
      throw alreadyStarted();
  }
}

const alreadyStarted = () => new ActionError("action.started", msg("queue.started"));

/** The cancelled card on the job's message, or where the click was made when it has none. */
async function showCancelled(
  core: Core,
  adapter: ChatAdapter,
  message: MessageRef | undefined,
  card: Parameters<ChatAdapter["edit"]>[1],
  where: ConversationRef,
) {
  try {
    if (message) return await adapter.edit(message, card);
  } catch (error) {
    core.logger.warn({ err: error }, "cancelled job's message not edited");
  }
  await adapter.post(where, card, { ephemeral: true });
}
