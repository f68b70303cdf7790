import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { useEmulator } from "./harness.js";

const t = useEmulator();

const bytes = new Uint8Array(1000).map((_, i) => i % 251);

async function initialize(contentType = "image/png", fileSize = bytes.length, key = "test-key") {
  const res = await t.call("POST", "/api/media/initialize", {
    key,
    json: { fileName: "photo.png", contentType, fileSize },
  });
  expect(res.status).toBe(200);
  return res.body as { mediaId: string; uploadUrl: string };
}

const put = (url: string, body: Uint8Array, contentType = "image/png") =>
  fetch(url, { method: "PUT", headers: { "content-type": contentType }, body });

describe("media upload", () => {
  it("initializes, takes a key-less presigned PUT on the emulator, finalizes", async () => {
    const { mediaId, uploadUrl } = await initialize();
    expect(uploadUrl.startsWith(`${t.em.url}/`)).toBe(true);
    expect(new URL(uploadUrl).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);

    const res = await put(uploadUrl, bytes);
    expect(res.status).toBe(200);
    expect(t.em.callsTo("PUT", /^\/storage\/uploads\//)[0]?.apiKey).toBeUndefined();

    const fin = await t.call("POST", "/api/media/finalize", { json: { mediaId } });
    expect(fin.body).toEqual({ success: true });
    expect(t.em.media(mediaId)).toMatchObject({
      apiKey: "test-key",
      contentType: "image/png",
      fileSize: 1000,
      receivedBytes: 1000,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      finalized: true,
      origin: "upload",
    });
  });

  it("validates the initialize body", async () => {
    const res = await t.call("POST", "/api/media/initialize", {
      json: { fileName: "x", contentType: "png" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/contentType: must be a MIME type.*fileSize is required/);
  });

  it("refuses a PUT whose Content-Type differs from the declared one (403)", async () => {
    const { uploadUrl } = await initialize();
    const res = await put(uploadUrl, bytes, "image/jpeg");
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
  });

  it("refuses a PUT of the wrong size (400) and a chunked one (411)", async () => {
    const { uploadUrl } = await initialize();
    expect((await put(uploadUrl, bytes.subarray(0, 999))).status).toBe(400);
    const larger = await put(uploadUrl, new Uint8Array(1001));
    expect(larger.status).toBe(400);
    expect(await larger.text()).toContain("EntityTooLarge");

    const chunked = await request(uploadUrl, {
      method: "PUT",
      headers: { "content-type": "image/png" },
      body: Readable.from([Buffer.from(bytes)]), // no length known: undici sends it chunked
    });
    expect(chunked.statusCode).toBe(411);
    await chunked.body.dump();
  });

  it("refuses a tampered or expired link (403)", async () => {
    const { uploadUrl } = await initialize();
    const tampered = uploadUrl.replace(
      /X-Amz-Signature=(.)/,
      (_, c) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`,
    );
    expect((await put(tampered, bytes)).status).toBe(403);
    t.clock.advance(2 * 60 * 60 * 1000);
    const expired = await put(uploadUrl, bytes);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("Request has expired");
  });

  it("finalizes only after a complete PUT, and only the owner's media", async () => {
    const { mediaId, uploadUrl } = await initialize();
    const early = await t.call("POST", "/api/media/finalize", { json: { mediaId } });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/upload not complete/);
    await put(uploadUrl, bytes);
    expect(
      (await t.call("POST", "/api/media/finalize", { key: "other-key", json: { mediaId } })).status,
    ).toBe(400);
    expect((await t.call("POST", "/api/media/finalize", { json: { mediaId: "nope" } })).status).toBe(400);
    expect((await t.call("POST", "/api/media/finalize", { json: { mediaId } })).status).toBe(200);
    expect((await put(uploadUrl, bytes)).status).toBe(403); // a finalized upload is sealed
  });

  it("lets only the owner use a finalized mediaId; unfinalized ones are unknown", async () => {
    const edit = (referenceImageMediaId: string, key = "test-key") =>
      t.call("POST", "/api/image/edit", { key, json: { name: "n", prompt: "p", referenceImageMediaId } });
    const { mediaId, uploadUrl } = await initialize();
    await put(uploadUrl, bytes);
    expect((await edit(mediaId)).status).toBe(404); // uploaded, not finalized
    await t.call("POST", "/api/media/finalize", { json: { mediaId } });
    expect((await edit(mediaId)).body.result).toBe("success");
    const foreign = await edit(mediaId, "other-key");
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe(`reference image not found: ${mediaId}`);
  });

  it("checks the media type where an image or audio is expected", async () => {
    const audio = await t.upload("audio/mpeg");
    const res = await t.call("POST", "/api/avatar/from-selfie/create", {
      json: { name: "me", photoMediaId: audio },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/invalid media type/);
  });

  it("serves an uploaded image's view to its owner only", async () => {
    const mediaId = await t.upload("image/png");
    const view = await fetch(`${t.em.url}/api/media/${mediaId}/view`, {
      headers: { "x-api-key": "test-key" },
    });
    expect(view.headers.get("content-type")).toBe("image/png");
    await view.arrayBuffer();
    expect((await t.call("GET", `/api/media/${mediaId}/view`, { key: "other-key" })).status).toBe(404);
    expect((await t.call("GET", `/api/media/${mediaId}/view`, { key: null })).status).toBe(401);
  });
});
