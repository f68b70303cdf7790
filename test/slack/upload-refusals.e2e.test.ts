import { describe, expect, it } from "vitest";
import type { FakeSlack, UploadPolicy } from "../fakes/slack/index.js";
import { headerOf, jobIdOf, type SlackWorld, shown, slackWorldPerTest } from "./harness.js";

/**
 * Workspaces whose admins restrict uploads (Settings & permissions > File uploads). Slack refuses
 * the file at files.getUploadURLExternal, before anything says it is coming: the result then
 * arrives once, as its link, with a line saying why, the job ends, and the refused upload is
 * never asked again (nor the thread read back, nor the result fetched again).
 */

let fake: FakeSlack;
let world: SlackWorld;
const start = slackWorldPerTest((started) => {
  world = started;
  fake = started.fake;
});

const downloads = () => world.emu.callsTo("GET", /^\/storage\/files\//);
const LINK_INSTEAD = "It is not attached: use the download link instead (valid for about a day).";

describe.each<[string, UploadPolicy, string, string, string]>([
  [
    "uploads turned off",
    { disabled: true },
    "image generate a heron nobody may upload",
    "file_uploads_disabled",
    "This workspace's admins have turned file uploads off.",
  ],
  [
    "images only",
    { imagesOnly: true },
    "video cinematic waves nobody may upload --duration 5",
    "file_uploads_except_images_disabled",
    "This workspace's admins allow uploads of images only.",
  ],
  [
    "only some file types",
    { allowedTypes: ["pdf", "docx"] },
    "image generate a heron of the wrong type",
    "file_type_not_allowed",
    "This workspace's admins do not allow uploads of this type of file.",
  ],
  [
    "a size limit",
    { maxBytes: 100 },
    "image generate a heron too big for the workspace",
    "file_upload_size_restricted",
    "The file is larger than this workspace's admins allow for uploads.",
  ],
  [
    "its file storage full",
    { storageFull: true },
    "image generate a heron with nowhere to go",
    "storage_limit_reached",
    "This workspace's file storage is full.",
  ],
])("a workspace with %s", (_what, policy, command, code, why) => {
  it(`shows the result once as its link, saying why (${code}), and never asks Slack for that upload again`, async () => {
    await start();
    fake.restrictUploads(policy);
    const done = await world.job(command);
    const jobId = jobIdOf(done)!;
    await world.until(async () => (await world.stores.jobs.get(jobId))?.delivery === "delivered");

    expect(headerOf(done)).toMatch(/^✅/);
    expect(shown(done)).toContain(`${why} ${LINK_INSTEAD}`);
    expect(shown(done)).toMatch(/<http[^|]+\|Download the (image|video)>/);
    expect(shown(done)).not.toContain("thread of this message");
    expect(world.channelMessages().filter((m) => jobIdOf(m) === jobId)).toHaveLength(1);
    // Refused once, at the ticket; nothing was shared, read back or asked again.
    const refused = fake.calls.filter((c) => c.answered.error === code);
    expect(refused.map((c) => c.method)).toEqual(["files.getUploadURLExternal"]);
    const after = fake.calls.slice(fake.calls.indexOf(refused[0]!) + 1).map((c) => c.method);
    expect(after).not.toContain("files.getUploadURLExternal");
    expect(fake.calls.map((c) => c.method)).not.toContain("files.completeUploadExternal");
    expect(fake.calls.map((c) => c.method)).not.toContain("conversations.replies");
    expect(fake.uploads).toEqual([]);
    // The result was read from the service once.
    expect(downloads().length).toBeLessThanOrEqual(1);
    // The job is done, not "not posted".
    expect((await world.stores.jobs.get(jobId))?.error ?? null).toBeNull();
  });
});

describe("the usage chart in a workspace without uploads", () => {
  it("is answered where it was asked, once, saying the chart could not be attached", async () => {
    await start();
    await world.job("image generate a heron before the ban");
    fake.restrictUploads({ disabled: true });
    const admin = fake.users.admin.id;
    const before = world.ephemeralTexts(admin).length;
    await world.command("usage", admin);
    const answer = await world.until(() => world.ephemeralTexts(admin)[before]);

    expect(answer).toContain("Media service usage");
    expect(answer).toContain("This workspace's admins have turned file uploads off. It is not attached");
    // Nothing said the chart was coming: no message in the DM, no upload, one refusal.
    expect(
      fake.calls.filter((c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D")),
    ).toEqual([]);
    expect(fake.calls.filter((c) => c.answered.error === "file_uploads_disabled")).toHaveLength(1);
    expect(world.ephemeralTexts(admin)).toHaveLength(before + 1);
  });
});

describe("a workflow step's file in a workspace without uploads", () => {
  it("ends the step with the result's link and no file, asking for the upload once", async () => {
    await start();
    fake.restrictUploads({ disabled: true });
    const { execution } = await fake.functionExecuted(world.eventsUrl, {
      callbackId: "generate_image",
      inputs: { user: { id: fake.users.requester.id, secret: "s" }, prompt: "a heron for the workflow" },
    });
    await world.until(() => execution.state !== "running", 10_000);

    expect(execution.state).toBe("completed");
    expect(execution.outputs).toEqual({
      job_id: expect.any(String),
      media_id: expect.any(String),
      url: expect.stringMatching(/^https?:\/\//),
    });
    expect(fake.calls.filter((c) => c.answered.error === "file_uploads_disabled")).toHaveLength(1);
  });
});

describe("a file refused only when it is shared (an admin's restriction set meanwhile)", () => {
  it("turns the message that said it was coming into the result's link, once, and shares nothing again", async () => {
    await start();
    fake.fail({ method: "files.completeUploadExternal", error: "file_type_not_allowed" });
    const done = await world.job("image generate a heron refused late");

    expect(shown(done)).toContain(
      `This workspace's admins do not allow uploads of this type of file. ${LINK_INSTEAD}`,
    );
    expect(shown(done)).not.toContain("thread of this message");
    expect(world.channelMessages().filter((m) => jobIdOf(m) === jobIdOf(done))).toHaveLength(1);
    expect(fake.calls.filter((c) => c.method === "files.completeUploadExternal")).toHaveLength(1);
    expect(fake.calls.filter((c) => c.method === "files.getUploadURLExternal")).toHaveLength(1);
    expect(fake.calls.map((c) => c.method)).not.toContain("conversations.replies");
  });
});
