import { describe, expect, it } from "vitest";
import type { Fault } from "../fakes/media-api/index.js";
import { CLIENT_TIMEOUT_MS, type FaultWorld, faultWorldPerFile } from "./world.js";

/**
 * Every way a file's trip to the service can fail, on the bot running as its own process: the
 * person is told what failed and what to do, nothing is created, the process lives with nothing
 * for its guard to catch, and the next command works.
 */

let world: FaultWorld;
faultWorldPerFile((started) => {
  world = started;
});

const STEPS = {
  initialize: { method: "POST", path: "/api/media/initialize" },
  "presigned PUT": { method: "PUT", path: /^\/storage\/uploads\// },
  finalize: { method: "POST", path: "/api/media/finalize" },
} as const;

type Answer = "400" | "401" | "500" | "timeout" | "dropped connection";

const ANSWERS: Record<Answer, Omit<Fault, "method" | "path">> = {
  "400": { status: 400, body: { error: "fileSize does not match" } },
  "401": { status: 401, body: { error: "Invalid API key" } },
  "500": { status: 500 },
  timeout: { delayMs: CLIENT_TIMEOUT_MS * 2 },
  "dropped connection": { hangUp: "unapplied" },
};

/** What the person reads after "…could not be uploaded…": the failure's own advice. */
function advice(step: keyof typeof STEPS, answer: Answer): RegExp {
  if (answer === "400") return /rejected the request: fileSize does not match\. Check the options/;
  if (answer === "401") {
    return step === "presigned PUT"
      ? /refused its own file link \(it may have expired\)\. Try again/
      : /API key .* is missing or invalid\. An admin can set one with the setup command/;
  }
  if (answer === "500") return /having trouble right now\. Try again in a few minutes/;
  if (answer === "timeout") return /took too long to answer\. Try again in a minute/;
  return /could not reach the media service\. Try again in a minute/;
}

const edits = () => world.emu.callsTo("POST", "/api/image/edit");

/** The process lived through the fault, its guard caught nothing, and a command with a file works. */
async function expectHealthy(): Promise<void> {
  expect(world.alive, world.crash).toBe(true);
  expect(world.strays()).toEqual([]);
  const before = edits().length;
  const next = await world.imageEdit("next.png");
  await world.until(() => edits().length > before && edits().at(-1)!.status === 200);
  expect(await world.answer(next)).not.toMatch(/could not/);
  expect(edits()).toHaveLength(before + 1);
}

describe("an upload step that fails (Discord, /image edit with a file)", () => {
  const cases = Object.keys(STEPS).flatMap((step) =>
    (Object.keys(ANSWERS) as Answer[]).map((answer) => [step as keyof typeof STEPS, answer] as const),
  );

  it.each(cases)("%s answering %s", async (step, answer) => {
    const before = edits().length;
    world.emu.inject({ ...STEPS[step], ...ANSWERS[answer] });

    const shown = await world.answer(await world.imageEdit());

    expect(shown).toContain("The attachment could not be uploaded");
    expect(shown).toContain(
      'The file "photo.png" could not be uploaded to the media service, so nothing was created or charged.',
    );
    expect(shown).toMatch(advice(step, answer));
    expect(edits()).toHaveLength(before);
    await expectHealthy();
  });
});

describe("an attachment Discord will not hand over", () => {
  it.each([403, 404, 500])("the attachment URL answers %i", async (status) => {
    const initializes = world.emu.callsTo("POST", "/api/media/initialize").length;
    const before = edits().length;
    world.discord.failAttachments({ status });

    const shown = await world.answer(await world.imageEdit());

    expect(shown).toContain(`Discord did not hand over the attachment "photo.png" (HTTP ${status})`);
    expect(shown).toContain("Attach it again and retry");
    expect(world.emu.callsTo("POST", "/api/media/initialize")).toHaveLength(initializes);
    expect(edits()).toHaveLength(before);
    await expectHealthy();
  });
});

describe("a Slack file the bot cannot read, or whose upload fails", () => {
  it.each([
    ["url_private answering 404", 404, /Slack did not hand over "photo\.png" \(HTTP 404\)\. Attach it again/],
    ["url_private answering the sign-in page", "sign-in-page", /reinstall the app with the files:read scope/],
  ] as const)("%s", async (_, download, said) => {
    const before = edits().length;
    const answers = world.slackEphemerals().length;

    await world.slackImageEdit(world.slackPng("photo.png", download));

    const shown = await world.until(() => world.slackEphemerals()[answers]);
    expect(shown).toMatch(said);
    expect(edits()).toHaveLength(before);
    await expectHealthy();
  });

  it("initialize answering 401 while the Slack file streams", async () => {
    const before = edits().length;
    const answers = world.slackEphemerals().length;
    world.emu.inject({ ...STEPS.initialize, ...ANSWERS["401"] });

    await world.slackImageEdit(world.slackPng());

    const shown = await world.until(() => world.slackEphemerals()[answers]);
    expect(shown).toContain("could not be uploaded to the media service, so nothing was created or charged");
    expect(shown).toMatch(advice("initialize", "401"));
    expect(edits()).toHaveLength(before);
    await expectHealthy();
  });
});
