import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator } from "../../fakes/media-api/index.js";
import { type HttpProxy, startProxy } from "../../fakes/proxy.js";
import { Harness, text } from "../bot/harness.js";

/**
 * A paid confirm whose answer is lost: the service applies it, but its answer comes after the
 * client gave up. The bot must neither repeat it nor leave the job waiting for a choice made.
 */

let h: Harness;
let proxy: HttpProxy;
const TIMEOUT_MS = 300;

beforeAll(async () => {
  const emulator = await startEmulator({ timeScale: 0.002 });
  proxy = await startProxy(emulator.url);
  h = await Harness.start({ mediaUrl: proxy.url, timeoutMs: TIMEOUT_MS }, emulator);
});
afterAll(async () => {
  await h.close();
  await h.emu.close();
  await proxy.close();
});

it("a confirm applied by the service but answered too late delivers the avatars once, never confirms again", async () => {
  const ref = await h.startJob("photo_avatar.design", { name: "Lia", gender: "female", age: "30s" });
  await h.shows(ref, (card) => card.actions.length === 3);
  proxy.delayAnswer({ method: "POST", path: "/api/avatar/design/confirm-both", ms: TIMEOUT_MS * 4 });

  await h.click(ref, "confirm_both");
  const told = h.lastEphemeral();
  expect(told.title).toBe("Checking what the media service did");
  expect(text(told)).toMatch(/did not say whether it kept your choice/);

  const result = await h.finished(ref);
  expect(result.tone).toBe("success");
  expect(result.fields.map((f) => f.name)).toEqual(["Avatar 1 id", "Avatar 2 id"]);
  // No Keep buttons left: only the follow-up, a video with each new avatar.
  expect(result.actions.map((a) => a.action)).toEqual(["avatar_video", "avatar_video", "delete_result"]);
  expect(h.creations("/api/avatar/design/confirm-both")).toHaveLength(1);
  // The result was posted once: one ready notice for the job.
  expect(h.chat.posts.filter((p) => p.options.idempotencyKey?.endsWith(":ready"))).toHaveLength(1);
});

it("a confirm that never reached the service brings the buttons back, and a new click keeps one", async () => {
  const ref = await h.startJob("photo_avatar.design", { name: "Max", gender: "male", age: "40s" });
  await h.shows(ref, (card) => card.actions.length === 3);
  h.emu.inject({ method: "POST", path: "/api/avatar/design/confirm", delayMs: TIMEOUT_MS * 4, status: 502 });

  await h.click(ref, "confirm", "2");
  expect(h.lastEphemeral().title).toBe("Checking what the media service did");
  await h.shows(ref, (card) => card.actions.length === 3);

  await h.click(ref, "confirm", "1");
  expect((await h.finished(ref)).fields).toHaveLength(1);
  expect(h.creations("/api/avatar/design/confirm", true)).toHaveLength(1);
});
