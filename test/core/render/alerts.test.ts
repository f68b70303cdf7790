import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/core/base/cards.js";
import { jobsNowLine, outOfCreditsCard, spendingAlertCard } from "../../../src/core/render/alerts.js";

const LOW = "Credits are running low: 80 of 1000 left (8 %), under the 10 % alert.";

describe("the spending alerts' cards", () => {
  it("show the jobs running apart from those waiting their turn, which are charged only once they start", () => {
    const alert = spendingAlertCard(LOW, "2026-12-01", { running: 3, waiting: 7 });
    expect(alert.lines).toEqual([
      LOW,
      "The period resets on 2026-12-01.",
      "Now: 3 jobs running; 7 jobs waiting their turn (they are charged only once they start). An admin can cancel waiting jobs from the jobs command with all.",
      "See who spent what with the usage command; an admin can set budgets with the budget command.",
    ]);
  });

  it("say only the running ones when nothing waits, and nothing of jobs when none runs or waits (or the store could not say)", () => {
    expect(jobsNowLine({ running: 1, waiting: 0 })).toBe("Now: 1 job running.");
    for (const now of [{ running: 0, waiting: 0 }, undefined]) {
      expect(spendingAlertCard(LOW, undefined, now).lines).toEqual([
        LOW,
        "See who spent what with the usage command; an admin can set budgets with the budget command.",
      ]);
    }
    expect(jobsNowLine({ running: 0, waiting: 2 })).toMatch(
      /^Now: 0 jobs running; 2 jobs waiting their turn/,
    );
  });

  it("out of credits: the waiting jobs are refused at their turn, nothing charged", () => {
    const refused = outOfCreditsCard(["A creation failed (", { userId: "u1" }, " ran image)."], {
      running: 2,
      waiting: 1,
    });
    expect(refused.tone).toBe("error");
    expect(refused.lines.map(plainText)).toEqual([
      "A creation failed (@u1 ran image).",
      "Now: 2 jobs running; 1 job waiting their turn (each is refused at its turn, nothing charged, until credits come back). An admin can cancel waiting jobs from the jobs command with all.",
    ]);
  });
});
