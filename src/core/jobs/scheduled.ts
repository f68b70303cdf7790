import type { Logger } from "../base/log.js";
import { Scheduler } from "./scheduler.js";
import { Tasks } from "./tasks.js";

/**
 * A part of the engine whose jobs fall due on a scheduler of its own: the poller's reads, the
 * deliveries' retries, the choices' expiries. It takes jobs only between `start` and `stop`, and
 * none falls due before `resume`: the engine resumes its parts once recovery has handed each
 * what it found, so that nothing runs twice meanwhile.
 */
export abstract class ScheduledPart {
  /** What a clean stop waits for. */
  readonly tasks: Tasks;
  protected readonly scheduler: Scheduler;
  protected running = false;

  constructor(opts: { now(): number; log: Logger }) {
    this.tasks = new Tasks(opts.log);
    this.scheduler = new Scheduler(opts.now, (id) => {
      if (this.running) this.fellDue(id);
    });
  }

  /** Takes jobs from now on; none falls due until `resume`. */
  start(): void {
    this.running = true;
    this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  /** Lets every job held here go; what is under way finishes, unless `forgetAll` aborts it. */
  stop(): void {
    this.running = false;
    this.scheduler.stop();
    this.forgetAll();
  }

  /** The job `id` fell due while this part runs. */
  protected abstract fellDue(id: string): void;

  /** Forgets every job held here, at a stop. */
  protected abstract forgetAll(): void;
}
