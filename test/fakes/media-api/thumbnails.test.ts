import { describe, expect, it } from "vitest";
import { useEmulator } from "./harness.js";

// Thumbnails take 15 ms of the manual clock; the list lives at a custom path with pages of 2.
const t = useEmulator({ timeScale: 0.001, thumbnailsListPath: "/api/thumbnail/list", thumbnailsPageSize: 2 });

const make = async (name: string) =>
  (
    await t.call("POST", "/api/thumbnail/generate", {
      json: { name, prompt: `${name} prompt`, aspectRatio: "9:16" },
    })
  ).body.jobId as string;

describe("thumbnails", () => {
  it("runs waiting -> started -> completed details with an absolute image link", async () => {
    const jobId = await make("Intro");
    const get = async () => (await t.call("GET", `/api/thumbnail/${jobId}`)).body;
    expect(await get()).toEqual({ result: "success", status: "waiting", progress: 0 });
    t.clock.advance(9);
    expect(await get()).toEqual({ result: "success", status: "started", progress: 60 });
    t.clock.advance(6);
    const done = await get();
    expect(done).toEqual({
      result: "success",
      status: "completed",
      progress: 100,
      thumbnail: expect.objectContaining({
        name: "Intro",
        prompt: "Intro prompt",
        aspectRatio: "9:16",
        jobId,
      }),
    });
    const png = await fetch(done.thumbnail.imageUrl);
    expect(png.headers.get("content-type")).toBe("image/png");
    await png.arrayBuffer();
  });

  it("pages the list, newest first", async () => {
    for (const name of ["a", "b", "c"]) await make(name);
    t.clock.advance(15);
    const page1 = (await t.call("GET", "/api/thumbnail/list")).body;
    expect(page1).toMatchObject({ result: "success", page: 1, totalPages: 2, totalCount: 3 });
    expect(page1.thumbnails.map((x: { name: string }) => x.name)).toEqual(["c", "b"]);
    const page2 = (await t.call("GET", "/api/thumbnail/list?page=2")).body;
    expect(page2.thumbnails.map((x: { name: string }) => x.name)).toEqual(["a"]);
    expect((await t.call("GET", "/api/thumbnail/list?page=0")).status).toBe(400);
    expect((await t.call("GET", "/api/thumbnails")).status).toBe(404);
  });

  it("refuses with the failure envelope and validates the body", async () => {
    const refs = await t.call("POST", "/api/thumbnail/generate", {
      json: { name: "n", prompt: "p", referenceImageMediaIds: ["cgone"] },
    });
    expect(refs.body).toEqual({ result: "failure", error: "reference image not found: cgone" });
    const ratio = await t.call("POST", "/api/thumbnail/generate", {
      json: { name: "n", prompt: "p", aspectRatio: "1:1" },
    });
    expect(ratio.status).toBe(400);
    t.em.planNextJob("thumbnail", { fail: "prompt rejected" });
    const jobId = await make("x");
    t.clock.advance(15);
    expect((await t.call("GET", `/api/thumbnail/${jobId}`)).body).toEqual({
      result: "failure",
      error: "prompt rejected",
      status: "failed",
    });
    expect((await t.call("GET", "/api/thumbnail/cgone")).status).toBe(404);
  });
});
