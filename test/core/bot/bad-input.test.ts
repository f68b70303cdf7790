import { describe, expect, it } from "vitest";
import { file, type Harness, harnessPerFile, png, text } from "./harness.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});

/** Every POST that would create something at the service (uploads included). */
const anyCreation = () => h.emu.calls.filter((c) => c.method === "POST");

/** The command got one private answer and nothing public: no job message. */
function refusedPrivately() {
  expect(h.chat.publicPosts()).toEqual([]);
  expect(h.chat.ephemerals()).toHaveLength(1);
  return h.lastEphemeral();
}

describe("bad input gets a clear, private answer and nothing is created", () => {
  it("an invalid option value", async () => {
    await h.command("image.generate", { prompt: "a fox", aspect_ratio: "2:3" });
    const card = refusedPrivately();
    expect(card.title).toBe("Check the command");
    expect(card.lines[0]).toBe('aspect_ratio must be one of 1:1, 16:9, 9:16, 4:3, 3:4 (got "2:3").');
    expect(anyCreation()).toEqual([]);
  });

  it("a missing required option and a wrong type", async () => {
    await h.command("thumbnail.generate", { seed: "many" });
    expect(refusedPrivately().lines[0]).toBe('prompt is required; seed must be a number (got "many").');
    expect(anyCreation()).toEqual([]);
  });

  it("a missing file", async () => {
    await h.command("image.edit", { prompt: "watercolor" });
    expect(refusedPrivately().lines[0]).toBe("Attach a file as image (PNG, JPEG, WEBP up to 10 MB).");
    expect(anyCreation()).toEqual([]);
  });

  it("a file of the wrong type", async () => {
    await h.command(
      "mockup.generate",
      { instruction: "logo on mug" },
      { attachments: { product: [file("mug.gif", "image/gif", 100)] } },
    );
    expect(refusedPrivately().lines[0]).toMatch(
      /"mug\.gif" is not a file product accepts \(image\/gif\)\. Attach PNG, JPEG, WEBP/,
    );
    expect(anyCreation()).toEqual([]);
  });

  it("an oversize file, checked before anything is uploaded", async () => {
    const big = { ...png("huge.png"), size: 30 * 1024 * 1024 };
    await h.command("image.edit", { prompt: "x" }, { attachments: { image: [big] } });
    expect(refusedPrivately().lines[0]).toMatch(/"huge\.png" is 30 MB, more than the 10 MB image accepts/);
    expect(anyCreation()).toEqual([]);
  });

  it("an unknown avatar id typed by hand", async () => {
    await h.command("video.avatar", { avatar: "no-such-avatar", script: "hi" });
    expect(refusedPrivately().lines[0]).toMatch(/There is no avatar "no-such-avatar" in this account/);
    expect(h.creations("/api/video/create")).toEqual([]);
  });

  it("a script and an audio file at once", async () => {
    await h.command(
      "video.avatar",
      { avatar: "cm2yaz9j10008l0qg9npyjgs3", script: "hi" },
      { attachments: { audio: [file("a.mp3", "audio/mpeg", 10)] } },
    );
    expect(refusedPrivately().lines[0]).toBe("Give a script or attach audio, not both.");
    expect(anyCreation()).toEqual([]);
  });

  it("an unknown command", async () => {
    await h.command("image.paint", { prompt: "x" });
    expect(refusedPrivately().lines[0]).toMatch(/There is no command "image\.paint"/);
  });
});

describe("refusals of the service are explained, never retried, and start no job", () => {
  it("the failure envelope", async () => {
    h.emu.inject({
      method: "POST",
      path: "/api/image/generate",
      body: { result: "failure", error: "prompt rejected by the safety filter" },
    });
    await h.command("image.generate", { prompt: "something" });
    const card = refusedPrivately();
    expect(card.title).toBe("The media service refused");
    expect(card.lines[0]).toMatch(/prompt rejected by the safety filter\. Check the options and try again/);
    expect(h.creations("/api/image/generate")).toHaveLength(1);
  });

  it("401: the key is not accepted", async () => {
    h.emu.inject({ path: "/api/image/generate", status: 401, body: { error: "invalid api key" } });
    await h.command("image.generate", { prompt: "something" });
    const card = refusedPrivately();
    expect(card.title).toBe("API key not accepted");
    expect(card.lines[0]).toMatch(/An admin can set one with the setup command/);
    expect(h.creations("/api/image/generate")).toHaveLength(1);
  });

  it("quota exceeded shows the account's figures", async () => {
    const account = h.emu.account("test-key");
    account.usage.cinematic_videos.used = account.usage.cinematic_videos.limit as number;
    await h.command("video.cinematic", { prompt: "a storm over the sea" });
    const card = refusedPrivately();
    expect(card.title).toBe("Out of credits or over the plan limit");
    expect(card.lines[0]).toMatch(/monthly cinematic video limit reached/);
    expect(text(card)).toMatch(/Cinematic videos: 10 of 10/);
    expect(text(card)).toMatch(/Credits left: 1000/);
    expect(h.creations("/api/video/cinematic/create")).toHaveLength(1);
  });

  it("not enough credits (HTTP 400) shows the balance", async () => {
    h.emu.account("test-key").creditsUsed = 1000;
    await h.command("image.generate", { prompt: "a fox" });
    const card = refusedPrivately();
    expect(card.title).toBe("Out of credits or over the plan limit");
    expect(text(card)).toMatch(/Credits left: 0/);
  });

  it("an unexpected answer gets a reference, not details", async () => {
    h.emu.inject({ method: "POST", path: "/api/image/generate", raw: "{not json" });
    await h.command("image.generate", { prompt: "a fox" });
    const card = refusedPrivately();
    expect(card.title).toBe("Unexpected answer from the media service");
    expect(JSON.stringify(card)).not.toMatch(/not json/);
  });
});

describe("small input defects", () => {
  it("an option named like an Object property (--constructor) is refused, not ignored", async () => {
    await h.command("image.generate", { prompt: "a fox", constructor: "x" });
    expect(refusedPrivately().lines[0]).toMatch(/^image generate has no option constructor\. Its options:/);
    expect(anyCreation()).toEqual([]);
  });

  it.each(["0x10", "1e3", "0b1", "+"])("a seed written as %j is refused", async (seed) => {
    await h.command("image.generate", { prompt: "a fox", seed });
    expect(refusedPrivately().lines[0]).toMatch(/^seed must be a number/);
    expect(anyCreation()).toEqual([]);
  });

  it("a seed in digits is still taken", async () => {
    await h.command("image.generate", { prompt: "a fox", seed: " 16 " });
    const [call] = h.creations("/api/image/generate");
    expect(call?.json).toMatchObject({ seed: 16 });
  });

  it("a title cut at an emoji is not sent to the service with half of it", async () => {
    // The 60-character title is cut after 59 UTF-16 units: between the two halves of the emoji.
    const prompt = `${"a".repeat(58)}\u{1F98A} fox in the snow at dawn`;
    await h.command("image.generate", { prompt });
    const [call] = h.creations("/api/image/generate");
    // The whole title, the emoji left out: no lone surrogate reaches the service.
    expect(call?.json).toMatchObject({ name: `${"a".repeat(58)}…` });
  });
});
