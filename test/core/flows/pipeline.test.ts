import { describe, expect, it } from "vitest";
import { runSteps, type Step, step } from "../../../src/core/flows/pipeline.js";

/** Named steps run in order, as Bolt runs its middleware. */

describe("runSteps", () => {
  it("runs each step in order; one that refuses ends the run, and a step around the rest hears why", async () => {
    const seen: string[] = [];
    const around: Step<{ said?: string }> = {
      name: "answer",
      async run(ctx, next) {
        try {
          await next();
        } catch (error) {
          ctx.said = (error as Error).message;
        }
      },
    };
    const ctx: { said?: string } = {};
    await runSteps(
      [
        around,
        step("first", () => void seen.push("first")),
        step("refuse", () => {
          throw new Error("not here");
        }),
        step("never", () => void seen.push("never")),
      ],
      ctx,
    );
    expect(seen).toEqual(["first"]);
    expect(ctx.said).toBe("not here");
  });

  it("lets a step act after the rest has run (a panel shown once the action is done)", async () => {
    const seen: string[] = [];
    await runSteps(
      [
        {
          name: "after",
          async run(_ctx, next) {
            await next();
            seen.push("after");
          },
        },
        step("action", () => void seen.push("action")),
      ],
      {},
    );
    expect(seen).toEqual(["action", "after"]);
  });
});
