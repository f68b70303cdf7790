import { Readable } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { type Harness, harnessPerFile, png, text } from "../bot/harness.js";
import { isMp4 } from "../fake-adapter.js";

let h: Harness;
harnessPerFile((started) => {
  h = started;
});
beforeEach(() => {
  h.chat.limit = 10 * 1024 * 1024;
});

const EMMA = "cm2yaz9j10008l0qg9npyjgs3";

describe("video commands", () => {
  it("video.avatar speaks a script with the avatar's own voice and posts the MP4", async () => {
    const ref = await h.startJob("video.avatar", { avatar: EMMA, script: "Hello and welcome to our shop" });
    const result = await h.finished(ref);
    expect(result.title).toBe("Avatar video: Hello and welcome to our shop");
    const [video] = h.chat.files();
    expect(video?.contentType).toBe("video/mp4");
    expect(isMp4(video!.bytes)).toBe(true);
    const [create] = h.creations("/api/video/create");
    expect(create?.json).toMatchObject({
      avatarId: EMMA,
      voiceId: "1",
      text: "Hello and welcome to our shop",
    });
  });

  it("video.avatar accepts an avatar typed by name, and lip-syncs an attached audio file", async () => {
    const audio = Buffer.alloc(3000, 7);
    const ref = await h.startJob(
      "video.avatar",
      { avatar: "Emma", full_body: "true" },
      {
        attachments: {
          audio: [
            {
              name: "speech.mp3",
              contentType: "audio/mpeg",
              size: audio.length,
              open: async () => Readable.from([audio]),
            },
          ],
        },
      },
    );
    expect((await h.finished(ref)).tone).toBe("success");
    const [create] = h.creations("/api/video/create");
    expect(create?.fields).toMatchObject({ avatarId: EMMA, im2vid_full: "true" });
    expect(create?.files).toEqual([
      expect.objectContaining({ field: "speechFile", contentType: "audio/mpeg", size: 3000 }),
    ]);
  });

  it("video.cinematic uploads its first frame and delivers the clip", async () => {
    const ref = await h.startJob(
      "video.cinematic",
      { prompt: "a drone shot over a glacier at dawn", duration: "8", resolution: "720p" },
      { attachments: { first_frame: [png("frame.png")] } },
    );
    expect((await h.finished(ref)).title).toBe("Cinematic video: a drone shot over a glacier at dawn");
    const [create] = h.creations("/api/video/cinematic/create");
    expect(create?.json).toMatchObject({
      durationSeconds: 8,
      resolution: "720p",
      firstFrameImageMediaId: expect.any(String),
    });
    expect(isMp4(h.chat.files()[0]!.bytes)).toBe(true);
  });

  it("a result over the conversation's upload limit is linked, and the card says why", async () => {
    h.emu.planNextJob("video", { large: true });
    h.chat.limit = 1024 * 1024;
    const ref = await h.startJob("video.avatar", { avatar: EMMA, script: "A long video" });
    const result = await h.finished(ref);
    expect(result.lines.join(" ")).toMatch(
      /is 50 MB, more than the 1.0 MB this conversation accepts, so it is not attached/,
    );
    expect(result.links).toEqual([
      { label: "Download the video", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1/) },
    ]);
    expect(h.chat.files()).toEqual([]);
  });

  it("video.list and video.get show finished videos", async () => {
    const ref = await h.startJob("video.avatar", { avatar: EMMA, script: "Listed video" });
    const done = await h.finished(ref);
    const videoId = done.fields.find((f) => f.name === "Video id")!.value;

    await h.command("video.list");
    expect(text(h.lastEphemeral())).toContain(`Listed video: id ${videoId}`);

    const filesBefore = h.chat.files().length;
    await h.command("video.get", { video_id: videoId });
    const answer = h.chat.lastPost();
    expect(answer.options.ephemeral).toBe(false);
    expect(h.chat.lastCard().title).toBe("Video: Listed video");
    expect(h.chat.files().length).toBe(filesBefore + 1);
    expect(isMp4(h.chat.files().at(-1)!.bytes)).toBe(true);
  });
});
