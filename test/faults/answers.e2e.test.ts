import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { openStores } from "../../src/store/index.js";
import { until } from "../main-process.js";
import { jobsSettled } from "../settled.js";
import { CLIENT_TIMEOUT_MS, type FaultWorld, faultWorldPerFile } from "./world.js";

/**
 * Answers lost on the way back, on the bot running as its own process: a creation call whose
 * answer never came (the job may exist and be charged: the person is told where to look, and the
 * call is never repeated), and a result download cut off midway (the result still arrives, once).
 */

let world: FaultWorld;
faultWorldPerFile((started) => {
  world = started;
});

const generations = () => world.emu.callsTo("POST", "/api/image/generate");

function imageGenerate(prompt: string) {
  return world.discord.sendCommand({ name: "image", subcommand: "generate", options: { prompt } });
}

describe("a creation call whose answer is lost", () => {
  it.each([
    ["answered after the bot's timeout", { delayMs: CLIENT_TIMEOUT_MS * 2, applyFirst: true }],
    ["its connection dropped after the service acted", { hangUp: "applied" as const }],
  ])("%s: the person is told it may have been created, and it is not run again", async (_, fault) => {
    const before = generations().length;
    const credits = world.emu.account("test-key").creditsUsed;
    world.emu.inject({ method: "POST", path: "/api/image/generate", ...fault });

    const shown = await world.answer(await imageGenerate("a lighthouse"));

    expect(shown).toContain("The job may have been created");
    expect(shown).toContain("It may have been created and charged");
    expect(shown).toContain("before running the command again");
    // The service did act on it, and the bot never asked twice.
    await world.until(() => world.emu.account("test-key").creditsUsed > credits);
    expect(generations()).toHaveLength(before + 1);
    expect(world.alive, world.crash).toBe(true);
    expect(world.strays()).toEqual([]);

    // The next command works.
    const next = await imageGenerate("a harbour");
    await world.until(() => generations().length === before + 2 && generations().at(-1)!.status === 200);
    expect(await world.answer(next)).not.toContain("may have been created");
  });

  it("names the list where the job will show up: a video goes to the video list", async () => {
    const before = world.emu.callsTo("POST", "/api/video/cinematic/create").length;
    world.emu.inject({ method: "POST", path: "/api/video/cinematic/create", hangUp: "applied" });

    const shown = await world.answer(
      await world.discord.sendCommand({
        name: "video",
        subcommand: "cinematic",
        options: { prompt: "a storm" },
      }),
    );

    expect(shown).toContain("look for it with the video list command");
    expect(world.emu.callsTo("POST", "/api/video/cinematic/create")).toHaveLength(before + 1);
    expect(world.strays()).toEqual([]);
  });
});

describe("a result download the service cuts off midway", () => {
  it("on Discord: the result still arrives, once", async () => {
    world.emu.inject({ method: "GET", path: /^\/storage\/files\//, hangUp: "mid-body", times: 3 });
    const interaction = await imageGenerate("a cut-off fox");

    const posted = await world.until(() => {
      const message = world.discord.original(interaction.id);
      return message?.attachments.length ? message : undefined;
    }, 15_000);

    expect(posted.attachments).toHaveLength(1);
    // Every cut was met (the size probe, the download, undici's resumption) before a whole file came.
    expect(world.emu.callsTo("GET", /^\/storage\/files\//).length).toBeGreaterThanOrEqual(4);
    const bytes = world.discord.file(posted.attachments[0]!)!;
    expect(bytes.subarray(-8).toString("hex")).toBe("49454e44ae426082"); // a PNG to its IEND chunk
    expect(world.alive, world.crash).toBe(true);
    expect(world.strays()).toEqual([]);
  });

  it("on Slack: the whole result is uploaded, once", async () => {
    const uploads = world.slack.uploads.length;
    const downloads = world.emu.callsTo("GET", /^\/storage\/files\//).length;
    world.emu.inject({ method: "GET", path: /^\/storage\/files\//, hangUp: "mid-body", times: 3 });

    await world.slackCommand("image generate a cut-off owl");

    const upload = await world.until(() => world.slack.uploads[uploads], 15_000);
    expect(upload.received?.bytes).toBe(upload.declaredLength);
    // Delivered on record and owned by no one, as the bot's store says: a second upload would
    // show by then.
    const stores = await openStores(
      `sqlite://${join(world.dir, "bot.sqlite")}`,
      undefined,
      pino({ level: "silent" }),
    );
    try {
      await until(
        () => jobsSettled(stores, [{ platform: "slack", tenantId: world.slack.teamId }]),
        15_000,
        () => "every job delivered and released",
      );
    } finally {
      await stores.close();
    }
    expect(world.slack.uploads).toHaveLength(uploads + 1);
    expect(world.emu.callsTo("GET", /^\/storage\/files\//).length - downloads).toBeGreaterThanOrEqual(4);
    expect(world.alive, world.crash).toBe(true);
    expect(world.strays()).toEqual([]);
  });
});
