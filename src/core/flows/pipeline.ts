/**
 * A gesture's handling as an ordered list of named steps, as Bolt runs its middleware: each step
 * does its part on the shared context and calls `next` for the steps after it. A step that wraps
 * the rest (answering a refusal, showing the panel afterwards) puts its part around `next`; a step
 * that refuses throws, and the steps after it never run. Each step is a value of its own, so a test
 * can run one alone on a context it builds.
 */

export interface Step<C> {
  /** What the step checks or does, as the handler's list reads: "admit", "who", "claim". */
  name: string;
  run(ctx: C, next: () => Promise<void>): Promise<void>;
}

/** A step that does its part, then lets the rest run. */
export function step<C>(name: string, part: (ctx: C) => void | Promise<void>): Step<C> {
  return {
    name,
    async run(ctx, next) {
      await part(ctx);
      await next();
    },
  };
}

/** Runs `steps` in order on `ctx`. */
export async function runSteps<C>(steps: readonly Step<C>[], ctx: C): Promise<void> {
  const from = async (at: number): Promise<void> => {
    const current = steps[at];
    if (current) await current.run(ctx, () => from(at + 1));
  };
  await from(0);
}
