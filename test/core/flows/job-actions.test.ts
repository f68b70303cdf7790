import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionByName } from "../../../src/core/actions/catalogue.js";
import type { AnyJobAction } from "../../../src/core/actions/define.js";
import type { ActionEvent } from "../../../src/core/base/ports.js";
import { AccessError, ActionError, InputError } from "../../../src/core/commands/errors.js";
import { HANDLERS } from "../../../src/core/flows/actions.js";
import { appliesTo, claim, files, form, value, who } from "../../../src/core/flows/job-actions.js";
import { runSteps, type Step } from "../../../src/core/flows/pipeline.js";
import { openStores, type Stores } from "../../../src/store/index.js";
import type { JobRecord } from "../../../src/store/jobs.js";
import type { TenantSettings } from "../../../src/store/tenants.js";
import { actor, CHANNEL, file, png, SECRETS_KEY } from "../bot/harness.js";

/**
 * Each step of a click on a job's control, run alone on the context the steps before it would
 * have left, over real stores: what it refuses, and what it hands on to the next.
 */

const tenant = { platform: "discord", tenantId: "guild-1" } as const;
const requester = actor();
const other = actor({ userId: "user-2" });
let dir: string;
let stores: Stores;
let settings: TenantSettings;
let image: JobRecord;
let running: JobRecord;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "job-actions-"));
  stores = await openStores(`sqlite://${join(dir, "bot.sqlite")}`, SECRETS_KEY, pino({ level: "silent" }));
  settings = await stores.tenants.get(tenant);
  const made = async (command: string, done: boolean) => {
    const job = await stores.jobs.create({
      kind: command.startsWith("photo_avatar") ? "photo_avatar" : "image",
      command,
      serviceJobId: `svc-${command}`,
      requester: { platform: "discord", tenantId: "guild-1", userId: requester.userId },
      conversation: CHANNEL,
      message: null,
      inputs: { request: { prompt: "a fox", name: "a fox", aspectRatio: "16:9", seed: 4 } },
    });
    if (!done) return job;
    const updated = await stores.jobs.update(job.id, job.version, {
      state: "done",
      result: { mediaId: "media-1" },
    });
    if (!updated.ok) throw new Error("the job could not be finished");
    return updated.job;
  };
  image = await made("image.generate", true);
  running = await made("photo_avatar.design", false);
});

afterAll(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const action = (name: string) => actionByName(name) as AnyJobAction;

function event(overrides: Partial<ActionEvent> = {}): ActionEvent {
  return { action: "edit", jobId: image.id, actor: requester, conversation: CHANNEL, ...overrides };
}

/** What admit leaves: the gesture, the job, its action and the tenant's settings. */
function admitted(def: AnyJobAction, job: JobRecord, gesture = event({ action: def.name })) {
  const value: unknown = undefined;
  return { event: gesture, admitted: { def, job, settings }, value, fields: {}, filled: {}, attachments: {} };
}

/** Runs `step` alone; resolves with whether it let the rest run. */
async function passes<C>(step: Step<C>, ctx: C): Promise<boolean> {
  let next = false;
  const rest: Step<C> = {
    name: "rest",
    async run() {
      next = true;
    },
  };
  await runSteps([step, rest], ctx);
  return next;
}

describe("a job's control, step by step", () => {
  it("goes through its steps in the stated order", () => {
    expect(HANDLERS.job.map((s) => s.name)).toEqual([
      "answer",
      "where",
      "admit",
      "who",
      "applies-to",
      "value",
      "form",
      "files",
      "claim",
      "run",
    ]);
  });

  it("who: a choice about the job is its requester's or an admin's; a follow-up anyone's", async () => {
    const confirm = action("confirm");
    expect(await passes(who, admitted(confirm, running))).toBe(true);
    await expect(passes(who, admitted(confirm, running, event({ actor: other })))).rejects.toThrow(
      AccessError,
    );
    expect(
      await passes(
        who,
        admitted(confirm, running, event({ actor: actor({ userId: "boss", isAdmin: true }) })),
      ),
    ).toBe(true);
    expect(await passes(who, admitted(action("edit"), image, event({ actor: other })))).toBe(true);
  });

  it("applies-to: refuses what the job does not offer, saying whether it is not finished yet", async () => {
    expect(await passes(appliesTo, admitted(action("edit"), image))).toBe(true);
    const early = passes(appliesTo, admitted(action("edit"), running));
    await expect(early).rejects.toThrow(ActionError);
    await expect(early).rejects.toThrow("This works once the job is finished.");
    await expect(passes(appliesTo, admitted(action("avatar_video"), image))).rejects.toThrow(
      "This result does not offer that any more.",
    );
  });

  it("value: an old message's value is refused, a valid one handed on", async () => {
    const confirm = action("confirm");
    const click = admitted(confirm, running, event({ action: "confirm", value: "2" }));
    await passes(value, click);
    expect(click.value).toBe("2");
    await expect(passes(value, admitted(confirm, running, event({ value: "3" })))).rejects.toThrow(
      "That is not a variant of this job.",
    );
  });

  it("form: checks the fields, filling the settings the form does not ask from the clicker's defaults", async () => {
    await stores.preferences.update(
      { platform: "discord", tenantId: "guild-1", userId: requester.userId },
      (p) => ({
        ...p,
        defaults: { aspect_ratio: "4:3", negative_prompt: "blur" },
      }),
    );
    const click: Parameters<typeof form.run>[0] = {
      core: { preferences: stores.preferences },
      ...admitted(action("edit"), image, event({ fields: { prompt: "at night" } })),
    };
    await passes(form, click);
    expect(click.form?.name).toBe("image.edit");
    expect(click.fields).toEqual({ prompt: "at night", aspect_ratio: "4:3", negative_prompt: "blur" });
    expect(click.filled).toMatchObject({ aspect_ratio: { value: "4:3", origin: { from: "person" } } });

    const empty = {
      core: { preferences: stores.preferences },
      ...admitted(action("edit"), image, event({ fields: {} })),
    };
    await expect(passes(form, empty)).rejects.toThrow(InputError);
    await expect(passes(form, empty)).rejects.toThrow(/prompt is required/);
  });

  it("files: the form's files are checked against its file options; without a form nothing is read", async () => {
    const spoken = action("regenerate_spoken");
    const asked = spoken.form!.of(image);
    const audio = file("speech.mp3", "audio/mpeg", 2_000);
    const click = { form: asked, event: event({ attachments: { audio: [audio] } }), attachments: {} };
    await passes(files, click);
    expect(click.attachments).toEqual({ audio: [audio] });
    await expect(
      passes(files, { form: asked, event: event({ attachments: { audio: [png()] } }), attachments: {} }),
    ).rejects.toThrow(InputError);
    const none = { event: event({ attachments: { audio: [png()] } }), attachments: {} };
    expect(await passes(files, none)).toBe(true);
    expect(none.attachments).toEqual({});
  });

  it("claim: a second click of the same person within the claim is refused with the action's words", async () => {
    const regenerate = action("regenerate");
    const click = () => ({ core: { claims: stores.claims }, ...admitted(regenerate, image) });
    expect(await passes(claim, click())).toBe(true);
    await expect(passes(claim, click())).rejects.toThrow(
      "Already regenerating: the new result appears in a new message.",
    );
    // Another person's click is theirs: it is not the first one's double.
    const theirs = {
      core: { claims: stores.claims },
      ...admitted(regenerate, image, event({ actor: other })),
    };
    expect(await passes(claim, theirs)).toBe(true);
    // An action without a claim takes none.
    expect(await passes(claim, { core: { claims: stores.claims }, ...admitted(action("edit"), image) })).toBe(
      true,
    );
    expect(await passes(claim, { core: { claims: stores.claims }, ...admitted(action("edit"), image) })).toBe(
      true,
    );
  });

  it("claim: Delete's is held while its run lasts and given back when it ends, failed or not", async () => {
    const remove = action("delete_result");
    const click = () => ({ core: { claims: stores.claims }, ...admitted(remove, image) });
    // A second click while the first runs is refused with the action's words.
    let during: unknown;
    const holding: Step<ReturnType<typeof click>> = {
      name: "rest",
      async run() {
        during = await passes(claim, click()).catch((error: unknown) => error);
      },
    };
    await runSteps([claim, holding], click());
    expect(during).toBeInstanceOf(ActionError);
    expect((during as ActionError).message).toContain("This result is being deleted");
    // Over: the next click runs.
    expect(await passes(claim, click())).toBe(true);
    // A run that failed (the platform refused) gives it back too: the person may try again.
    const refusing: Step<ReturnType<typeof click>> = {
      name: "rest",
      async run() {
        throw new Error("the platform refused");
      },
    };
    await expect(runSteps([claim, refusing], click())).rejects.toThrow("the platform refused");
    expect(await passes(claim, click())).toBe(true);
  });
});
