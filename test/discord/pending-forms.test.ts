import { describe, expect, it } from "vitest";
import { commandByName } from "../../src/core/commands/catalogue.js";
import { FORM_TTL_MS, MAX_FORMS, MAX_FORMS_PER_USER, PendingForms } from "../../src/discord/pending-forms.js";

/** Commands waiting for their modal are held in memory: for a bounded time and in bounded numbers. */

const command = commandByName("image.generate")!;
const form = (userId: string) => ({ command, options: {}, attachments: {}, userId });

describe("pending forms", () => {
  it("are forgotten after 15 minutes", () => {
    const clock = { t: 0, now: () => clock.t };
    const forms = new PendingForms(clock);
    const key = forms.put(form("u1"));
    clock.t = FORM_TTL_MS + 1;
    expect(forms.take(key, "u1")).toBeUndefined();
  });

  it("keep only a person's latest few: an older one is gone, the newest still submits", () => {
    const forms = new PendingForms();
    const keys = Array.from({ length: MAX_FORMS_PER_USER + 2 }, () => forms.put(form("u1")));
    const other = forms.put(form("u2"));
    expect(forms.take(keys[0]!, "u1")).toBeUndefined();
    expect(forms.take(keys[1]!, "u1")).toBeUndefined();
    expect(forms.take(keys.at(-1)!, "u1")).toBeDefined();
    expect(forms.take(other, "u2")).toBeDefined();
  });

  it("never hold more than the overall bound, whoever opens them", () => {
    const forms = new PendingForms();
    const first = forms.put(form("user-0"));
    for (let i = 1; i <= MAX_FORMS; i += 1) forms.put(form(`user-${i}`));
    const last = forms.put(form("user-last"));
    expect(forms.take(first, "user-0")).toBeUndefined();
    expect(forms.take(last, "user-last")).toBeDefined();
  });
});
