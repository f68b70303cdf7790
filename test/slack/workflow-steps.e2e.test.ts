import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solidPng } from "../fakes/media-api/png.js";
import { type FakeSlack, type FunctionExecution, startFakeSlack } from "../fakes/slack/index.js";
import { headerOf, SlackWorld } from "./harness.js";

/**
 * Workflow Builder's steps over the real Bolt app: the fake Slack sends `function_executed` with
 * the execution's own token, the bot runs the step's command as the person in its user_context
 * input, and completes the step with functions.completeSuccess / completeError when the job ends.
 */

let fake: FakeSlack;
let world: SlackWorld;

beforeAll(async () => {
  // The bytes the bot uploads stay readable: a later step reads the File an earlier one output.
  fake = await startFakeSlack({ keepUploads: true });
  world = await SlackWorld.start(fake);
});
afterAll(async () => {
  await world?.close();
  await fake?.close();
});

const person = () => ({ id: fake.users.requester.id, secret: "user-context-secret" });

/** Runs a step and resolves with its execution once the bot ended it. */
async function runStep(callbackId: string, inputs: Record<string, unknown>): Promise<FunctionExecution> {
  const { execution, answer } = await fake.functionExecuted(world.eventsUrl, { callbackId, inputs });
  expect(answer.status).toBe(200);
  return world.until(() => (execution.state === "running" ? undefined : execution), 10_000);
}

const png = (name: string, rgb: [number, number, number]) =>
  fake.addUserFile(solidPng(rgb), { name, mimetype: "image/png" }).id;

/** A job id of ours: 12 URL-safe characters. */
const JOB_ID = /^[\w-]{12}$/;

describe("each workflow step, from function_executed to functions.completeSuccess", () => {
  it("Generate an image: the file (shared nowhere), its link, its media id and the job id", async () => {
    const messagesBefore = fake.messages().length;
    const done = await runStep("generate_image", {
      user: person(),
      prompt: "a red fox in snow",
      aspect_ratio: "16:9",
      seed: 7,
    });

    expect(done.state).toBe("completed");
    expect(done.outputs).toEqual({
      job_id: expect.stringMatching(JOB_ID),
      media_id: expect.any(String),
      url: expect.stringMatching(/^https?:\/\//),
      file: expect.stringMatching(/^F/),
    });
    const [created] = world.creations("/api/image/generate");
    expect(created?.json).toMatchObject({ prompt: "a red fox in snow", aspectRatio: "16:9", seed: 7 });
    const upload = fake.uploads.find((u) => u.fileId === done.outputs?.file);
    expect(upload).toMatchObject({ completed: true, channel: undefined });
    expect(upload?.filename).toMatch(/\.png$/);
    // A workflow reads no channel: the step posted nothing anywhere.
    expect(fake.messages()).toHaveLength(messagesBefore);
    // Completed once, with the execution's own token; nothing else was called with that token.
    expect(done.attempts).toEqual([{ method: "functions.completeSuccess", answer: "ok" }]);
    expect(fake.calls.filter((c) => c.token === done.token).map((c) => c.method)).toEqual([
      "functions.completeSuccess",
    ]);
    // The job is the person's, as a slash command's would be; it is recorded as delivered once
    // Slack took the completion.
    const requester = { platform: "slack" as const, tenantId: fake.teamId, userId: fake.users.requester.id };
    const stored = async () =>
      (await world.stores.jobs.listByRequester(requester, 10)).find((j) => j.id === done.outputs?.job_id);
    await expect.poll(async () => (await stored())?.delivery).toBe("delivered");
    const job = await stored();
    expect(job).toMatchObject({ command: "image.generate", state: "done" });
    // The step's token was kept only while the job ran.
    expect(job?.message).toMatchObject({ messageId: done.id });
    expect(job?.message).not.toHaveProperty("live");
    expect(JSON.stringify(job)).not.toContain(done.token);
  });

  it("Edit an image: the File output of an earlier step is its image", async () => {
    const first = await runStep("generate_image", { user: person(), prompt: "a blue bird" });
    const edited = await runStep("edit_image", {
      user: person(),
      image: first.outputs?.file,
      prompt: "make it night",
    });

    expect(edited.state).toBe("completed");
    expect(edited.outputs).toMatchObject({ job_id: expect.stringMatching(JOB_ID), file: expect.any(String) });
    expect(edited.outputs?.job_id).not.toBe(first.outputs?.job_id);
    const [edit] = world.creations("/api/image/edit");
    expect(edit?.json).toMatchObject({ prompt: "make it night", referenceImageMediaId: expect.any(String) });
  });

  it("Edit an image: the URL output of an earlier step is its image, read by the bot and uploaded", async () => {
    const first = await runStep("generate_image", { user: person(), prompt: "a green frog" });
    const uploads = world.creations("/api/media/initialize").length;
    const edited = await runStep("edit_image", {
      user: person(),
      image_url: first.outputs?.url,
      prompt: "make it rain",
    });

    expect(edited.state).toBe("completed");
    expect(edited.outputs).toMatchObject({ job_id: expect.stringMatching(JOB_ID), file: expect.any(String) });
    const upload = world.creations("/api/media/initialize").slice(uploads);
    expect(upload).toHaveLength(1);
    expect(upload[0]?.json).toMatchObject({ contentType: "image/png", fileSize: expect.any(Number) });
    const edit = world.creations("/api/image/edit").at(-1);
    expect(edit?.json).toMatchObject({ prompt: "make it rain", referenceImageMediaId: expect.any(String) });
  });

  it("Make a thumbnail, with a reference image from a form", async () => {
    const done = await runStep("make_thumbnail", {
      user: person(),
      prompt: "a channel banner",
      aspect_ratio: "9:16",
      references: png("face.png", [10, 120, 200]),
    });

    expect(done.state).toBe("completed");
    expect(done.outputs).toMatchObject({ job_id: expect.stringMatching(JOB_ID), url: expect.any(String) });
    const [created] = world.creations("/api/thumbnail/generate");
    expect(created?.json).toMatchObject({ prompt: "a channel banner", aspectRatio: "9:16" });
    expect(created?.json).toMatchObject({ referenceImageMediaIds: [expect.any(String)] });
  });

  it("Make an avatar video: the avatar and voice by name, the video's id as media id", async () => {
    const done = await runStep("make_avatar_video", {
      user: person(),
      avatar: "Emma",
      voice: "Noah",
      script: "Welcome to the team",
    });

    expect(done.state).toBe("completed");
    expect(done.outputs).toMatchObject({
      job_id: expect.stringMatching(JOB_ID),
      media_id: expect.any(String),
      file: expect.any(String),
    });
    const [created] = world.creations("/api/video/create");
    expect(created?.json).toMatchObject({ avatarId: "cm2yaz9j10008l0qg9npyjgs3", voiceId: "2" });
    expect(fake.uploads.find((u) => u.fileId === done.outputs?.file)?.filename).toMatch(/\.mp4$/);
  });

  it("Make a cinematic video from a first frame", async () => {
    const done = await runStep("make_cinematic_video", {
      user: person(),
      prompt: "waves at dawn",
      duration: 5,
      first_frame: png("frame.png", [9, 80, 160]),
    });

    expect(done.state).toBe("completed");
    expect(done.outputs).toMatchObject({
      job_id: expect.stringMatching(JOB_ID),
      media_id: expect.any(String),
    });
    const [created] = world.creations("/api/video/cinematic/create");
    expect(created?.json).toMatchObject({
      prompt: "waves at dawn",
      durationSeconds: 5,
      firstFrameImageMediaId: expect.any(String),
    });
  });
});

describe("a step's result in the person's Home", () => {
  it("a follow-up clicked there runs in their DM with the bot (a step has no channel), charged once", async () => {
    const done = await runStep("generate_image", { user: person(), prompt: "a fox for the home" });
    const jobId = String(done.outputs?.job_id);
    await fake.openHome(world.eventsUrl);
    const regenerate = `media:regenerate:${jobId}`;
    await world.until(() =>
      JSON.stringify(fake.home(fake.users.requester.id)?.blocks ?? []).includes(regenerate),
    );
    const generations = world.creations("/api/image/generate").length;

    await fake.homeAction(world.eventsUrl, { user: fake.users.requester.id, actionId: regenerate });

    const again = await world.until(() => {
      const dm = fake.calls.find(
        (c) =>
          c.method === "chat.postMessage" &&
          String(c.args.channel).startsWith("D") &&
          JSON.stringify(c.args).includes("a fox for the home"),
      );
      return dm && String(dm.args.channel);
    }, 10_000);
    await world.until(
      () => fake.messages(again).find((m) => headerOf(m)?.startsWith("✅ Image: a fox for the home")),
      10_000,
    );
    expect(world.creations("/api/image/generate")).toHaveLength(generations + 1);
    // It is the person's own new job there, not a step's result come late.
    expect(JSON.stringify(fake.messages(again))).not.toContain("had ended before the job did");
    // The finished step is not touched again.
    expect(done.attempts).toEqual([{ method: "functions.completeSuccess", answer: "ok" }]);
  });
});

describe("a long video's step set to finish when started", () => {
  it("completes at once with the job id, and the video comes to the person's DM when ready", async () => {
    world.emu.planNextJob("cinematic", { durationMs: 1_500 });
    const done = await runStep("make_cinematic_video", {
      user: person(),
      prompt: "a long voyage",
      finish_at_start: true,
    });

    expect(done.state).toBe("completed");
    expect(done.outputs).toEqual({ job_id: expect.stringMatching(JOB_ID) });
    const dm = await world.until(() => {
      const call = fake.calls.find(
        (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
      );
      return call && String(call.args.channel);
    });
    // The job's own message, in the DM, goes from queued to the finished video in its thread.
    const message = await world.until(
      () => fake.messages(dm).find((m) => !m.thread_ts && m.text.includes("a long voyage")),
      10_000,
    );
    const finished = await world.until(() => {
      const now = fake.messages(dm).find((m) => m.ts === message.ts);
      return now && headerOf(now)?.startsWith("✅ Cinematic video: a long voyage") && now;
    }, 10_000);
    await world.until(() => fake.uploads.find((u) => u.channel === dm && u.threadTs === message.ts));
    expect(JSON.stringify(finished.blocks)).toContain(String(done.outputs?.job_id));
    expect(done.attempts).toHaveLength(1);
  });
});

describe("a step that makes nothing ends with functions.completeError and its reason", () => {
  it("the service's failure reason", async () => {
    world.emu.planNextJob("image", { fail: "the prompt was refused by the content policy" });
    const done = await runStep("generate_image", { user: person(), prompt: "a refused fox" });

    expect(done.state).toBe("failed");
    expect(done.error).toContain("the prompt was refused by the content policy");
    expect(done.attempts).toEqual([{ method: "functions.completeError", answer: "ok" }]);
  });

  it("a file of the wrong type: said plainly, nothing created, no credits spent", async () => {
    const account = world.emu.account("test-key");
    const spent = account.creditsUsed;
    const edits = world.creations("/api/image/edit").length;
    const pdf = fake.addUserFile(Buffer.from("%PDF-1.4 not an image"), {
      name: "brief.pdf",
      mimetype: "application/pdf",
    });

    const done = await runStep("edit_image", { user: person(), image: pdf.id, prompt: "make it pop" });

    expect(done.state).toBe("failed");
    expect(done.error).toMatch(/"brief\.pdf" is not a file image accepts .*PNG, JPEG, WEBP/);
    expect(world.creations("/api/image/edit")).toHaveLength(edits);
    expect(account.creditsUsed).toBe(spent);
  });

  it("an image URL into the bot's own network, or one that does not answer with a file: nothing created", async () => {
    const spent = world.emu.account("test-key").creditsUsed;
    const edits = world.creations("/api/image/edit").length;

    const inside = await runStep("edit_image", {
      user: person(),
      image_url: "http://localhost:9/admin/secret.png",
      prompt: "make it pop",
    });
    const missing = await runStep("edit_image", {
      user: person(),
      image_url: `${world.emu.url}/no/such/picture.png`,
      prompt: "make it pop",
    });
    const notLink = await runStep("edit_image", {
      user: person(),
      image_url: "my picture",
      prompt: "make it pop",
    });

    expect(inside.state).toBe("failed");
    expect(inside.error).toContain("The bot does not fetch files from localhost:9");
    expect(missing.state).toBe("failed");
    expect(missing.error).toMatch(
      /The file at http:\/\/127\.0\.0\.1:\d+\/no\/such\/picture\.png could not be read \(it answered HTTP 404\)/,
    );
    expect(notLink.state).toBe("failed");
    expect(notLink.error).toContain("could not be read (it is not a web address)");
    expect(world.creations("/api/image/edit")).toHaveLength(edits);
    expect(world.emu.account("test-key").creditsUsed).toBe(spent);
  });

  it("an image given both as a file and as a link: both used where several are taken, else refused", async () => {
    const first = await runStep("generate_image", { user: person(), prompt: "a fox given twice" });
    const uploads = world.creations("/api/media/initialize").length;
    const edited = await runStep("edit_image", {
      user: person(),
      image: png("one.png", [1, 1, 1]),
      image_url: first.outputs?.url,
      prompt: "make them one",
    });
    expect(edited.state).toBe("completed");
    expect(world.creations("/api/media/initialize").slice(uploads)).toHaveLength(2);

    const spent = world.emu.account("test-key").creditsUsed;
    const clips = world.creations("/api/video/cinematic/create").length;
    const clip = await runStep("make_cinematic_video", {
      user: person(),
      prompt: "waves",
      first_frame: png("frame.png", [1, 1, 1]),
      first_frame_url: first.outputs?.url,
    });

    expect(clip.state).toBe("failed");
    expect(clip.error).toContain("first_frame takes at most 1 file; 2 were attached");
    expect(world.creations("/api/video/cinematic/create")).toHaveLength(clips);
    expect(world.emu.account("test-key").creditsUsed).toBe(spent);
  });

  it("a missing image, and a step without the person who runs it", async () => {
    const spent = world.emu.account("test-key").creditsUsed;

    const noImage = await runStep("edit_image", { user: person(), prompt: "make it pop" });
    const noPerson = await runStep("generate_image", { prompt: "a fox of nobody's" });

    expect(noImage.state).toBe("failed");
    expect(noImage.error).toBe(
      "Edit an image needs an image: a file in its Image input, or a link in Image URL.",
    );
    expect(noPerson.state).toBe("failed");
    expect(noPerson.error).toContain("the person who used the workflow");
    expect(world.emu.account("test-key").creditsUsed).toBe(spent);
  });
});

describe("a completion Slack refuses for good (outputs it will not take)", () => {
  it("ends the step in error saying so, once, instead of leaving the workflow waiting; the job is kept", async () => {
    fake.fail({ method: "functions.completeSuccess", error: "invalid_arguments", times: 1 });
    const done = await runStep("generate_image", { user: person(), prompt: "a fox Slack will not take" });

    expect(done.state).toBe("failed");
    expect(done.error).toMatch(
      /^Slack did not take this step's outputs \(invalid_arguments\)\. The job [\w-]{12} finished: \/media jobs shows its result\.$/,
    );
    const refused = fake.calls.filter(
      (c) => c.method === "functions.completeSuccess" && c.args.function_execution_id === done.id,
    );
    expect(refused.map((c) => c.answered.error)).toEqual(["invalid_arguments"]);
    expect(done.attempts).toEqual([{ method: "functions.completeError", answer: "ok" }]);
    const requester = { platform: "slack" as const, tenantId: fake.teamId, userId: fake.users.requester.id };
    const stored = async () =>
      (await world.stores.jobs.listByRequester(requester, 5)).find((j) =>
        JSON.stringify(j.inputs).includes("a fox Slack will not take"),
      );
    await expect.poll(async () => (await stored())?.delivery).toBe("delivered");
    expect(done.error).toContain(String((await stored())?.id));
    const posts = fake.calls.filter(
      (c) => c.method === "chat.postMessage" || c.method === "chat.postEphemeral",
    );
    expect(posts.filter((c) => JSON.stringify(c.args).includes("a fox Slack will not take"))).toEqual([]);
  });
});

describe("the person who runs the workflow", () => {
  it("is held to the workspace's access rules, as their slash command would be", async () => {
    const tenant = { platform: "slack" as const, tenantId: fake.teamId };
    await world.stores.tenants.update(tenant, { allowedRoleIds: ["S0DESIGNERS"] });
    try {
      const creations = world.creations("/api/image/generate").length;
      const done = await runStep("generate_image", { user: person(), prompt: "a fox without the role" });

      expect(done.state).toBe("failed");
      expect(done.error).toContain("You do not have a role that may use the bot here");
      expect(world.creations("/api/image/generate")).toHaveLength(creations);
    } finally {
      await world.stores.tenants.update(tenant, { allowedRoleIds: [] });
    }
  });
});

describe("the budget of the person who runs the workflow", () => {
  it("holds: a step over it ends in error and creates nothing", async () => {
    const member = fake.addUser("budgeted");
    const runner = { id: member.id, secret: "s" };
    await world.answer(`budget <@${member.id}|budgeted> --jobs 1`, fake.users.admin.id);

    const first = await runStep("generate_image", { user: runner, prompt: "the one fox in budget" });
    const creations = world.creations("/api/image/generate").length;
    const second = await runStep("generate_image", { user: runner, prompt: "a fox over budget" });

    expect(first.state).toBe("completed");
    expect(second.state).toBe("failed");
    expect(second.error).toContain("This would go over your budget: 1 of 1 job");
    expect(world.creations("/api/image/generate")).toHaveLength(creations);
  });
});

describe("a job that outlives its step's token (Slack gives it 15 minutes; here 300 ms)", () => {
  let shortFake: FakeSlack;
  let shortWorld: SlackWorld;
  beforeAll(async () => {
    shortFake = await startFakeSlack({ functionTokenTtlMs: 300 });
    shortWorld = await SlackWorld.start(shortFake);
  });
  afterAll(async () => {
    await shortWorld?.close();
    await shortFake?.close();
  });

  it("comes to the person's DM with the bot, saying why; the step is not completed", async () => {
    shortWorld.emu.planNextJob("image", { durationMs: 1_000 });
    const { execution } = await shortFake.functionExecuted(shortWorld.eventsUrl, {
      callbackId: "generate_image",
      inputs: { user: { id: shortFake.users.requester.id, secret: "s" }, prompt: "a slow fox" },
    });

    const dm = await shortWorld.until(() => {
      const call = shortFake.calls.find(
        (c) => c.method === "chat.postMessage" && String(c.args.channel).startsWith("D"),
      );
      return call && String(call.args.channel);
    }, 10_000);
    const result = await shortWorld.until(() => shortFake.messages(dm).find((m) => !m.thread_ts));

    expect(execution.attempts).toEqual([{ method: "functions.completeSuccess", answer: "token_expired" }]);
    expect(execution.state).toBe("running");
    expect(result.text).toContain(`<@${shortFake.users.requester.id}>`);
    expect(JSON.stringify(result.blocks)).toContain("had ended before the job did");
    // The image itself, in the DM message's thread.
    await shortWorld.until(() => shortFake.uploads.find((u) => u.channel === dm && u.threadTs === result.ts));
  });
});
