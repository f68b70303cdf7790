import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { useEmulator } from "./harness.js";

const t = useEmulator();

describe("faults", () => {
  it("fails the n-th matching call with a 5xx, then recovers", async () => {
    t.em.inject({ method: "GET", path: "/api/usage", skip: 2, times: 2, status: 503 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.call("GET", "/api/usage")).status);
    expect(statuses).toEqual([200, 200, 503, 503, 200]);
    expect(t.em.callsTo("GET", "/api/usage").map((c) => c.status)).toEqual(statuses);
  });

  it("only fires on the given method and path pattern", async () => {
    t.em.inject({ method: "POST", path: /^\/api\/image\//, status: 500, body: { error: "boom" } });
    expect((await t.call("GET", "/api/image/cx")).status).toBe(404);
    const res = await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } });
    expect(res).toMatchObject({ status: 500, body: { error: "boom" } });
    // The request that met the fault is still recorded with its body; nothing was charged.
    expect(t.em.callsTo("POST", "/api/image/generate")[0]).toMatchObject({
      status: 500,
      json: { name: "n", prompt: "p" },
    });
    expect(t.em.account("test-key").creditsUsed).toBe(0);
  });

  it("answers malformed JSON verbatim", async () => {
    t.em.inject({ path: "/api/avatars", raw: '{"avatars": [' });
    const res = await fetch(`${t.em.url}/api/avatars`, { headers: { "x-api-key": "test-key" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    await expect(res.json()).rejects.toThrow();
  });

  it("sends canned headers, e.g. a 429 with Retry-After", async () => {
    t.em.inject({
      path: "/api/usage",
      status: 429,
      headers: { "retry-after": "2" },
      body: { error: "slow down" },
    });
    const res = await t.call("GET", "/api/usage");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
  });

  it("delays an answer, then serves it normally", async () => {
    // A delay long enough that no loaded machine takes as long to answer a local GET: the second
    // call, served normally, tells itself apart from a delayed one without guessing at speed.
    const delayMs = 3_000;
    t.em.inject({ path: "/api/usage", delayMs });
    const started = performance.now();
    const res = await t.call("GET", "/api/usage");
    expect(performance.now() - started).toBeGreaterThanOrEqual(delayMs - 10);
    expect(res.body.plan).toBe("pro");
    const quick = performance.now();
    await t.call("GET", "/api/usage");
    expect(performance.now() - quick).toBeLessThan(delayMs - 10);
  });

  it("hangs up before applying a call: no answer, nothing created or charged", async () => {
    t.em.inject({ method: "POST", path: "/api/image/generate", hangUp: "unapplied" });
    await expect(
      t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } }),
    ).rejects.toThrow();
    expect(t.em.callsTo("POST", "/api/image/generate")).toMatchObject([{ status: 0 }]);
    expect(t.em.account("test-key").creditsUsed).toBe(0);
    // The next call is answered as usual.
    expect((await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } })).status).toBe(
      200,
    );
  });

  it("hangs up after applying a call: the job is created and charged, its answer never comes", async () => {
    t.em.inject({ method: "POST", path: "/api/image/generate", hangUp: "applied" });
    await expect(
      t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } }),
    ).rejects.toThrow();
    expect(t.em.callsTo("POST", "/api/image/generate")).toMatchObject([{ status: 0 }]);
    expect(t.em.account("test-key").creditsUsed).toBe(1);
  });

  it("applies a call at once and holds only its answer back", async () => {
    t.em.inject({ method: "POST", path: "/api/image/generate", delayMs: 300, applyFirst: true });
    const answered = t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } });
    await sleep(100);
    expect(t.em.account("test-key").creditsUsed).toBe(1);
    expect(t.em.callsTo("POST", "/api/image/generate")).toMatchObject([{ status: 0 }]);
    expect((await answered).status).toBe(200);
  });

  it("cuts a download off after its headers and half its bytes", async () => {
    const { jobId } = (await t.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } }))
      .body;
    t.clock.advance(60_000);
    const { downloadUrl } = (await t.call("GET", `/api/image/${jobId}`)).body;
    const whole = Buffer.from(await (await fetch(downloadUrl)).arrayBuffer());
    t.em.inject({ method: "GET", path: /^\/storage\/files\//, hangUp: "mid-body" });
    const cut = await fetch(downloadUrl);
    expect(cut.status).toBe(200);
    expect(Number(cut.headers.get("content-length"))).toBe(whole.length);
    const received: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of cut.body as AsyncIterable<Uint8Array>) received.push(Buffer.from(chunk));
    })();
    await expect(reading).rejects.toThrow();
    expect(Buffer.concat(received)).toEqual(whole.subarray(0, Math.floor(whole.length / 2)));
  });

  it("reset clears faults and calls", async () => {
    t.em.inject({ path: "/api/usage", status: 500 });
    t.em.reset();
    expect(t.em.calls).toEqual([]);
    expect((await t.call("GET", "/api/usage")).status).toBe(200);
  });
});

describe("recorded calls", () => {
  it("records method, path, query, key, content type, status and time", async () => {
    t.clock.advance(5);
    await t.call("GET", "/api/usage?x=1", { key: "other-key" });
    expect(t.em.calls).toEqual([
      {
        method: "GET",
        path: "/api/usage",
        query: { x: "1" },
        status: 200,
        apiKey: "other-key",
        at: t.clock.t,
      },
    ]);
  });
});

describe("time scale on the real clock", () => {
  const real = useEmulator({ now: Date.now, timeScale: 0.002 }); // an image takes 40 ms

  it("finishes jobs in their scaled duration", async () => {
    const started = Date.now();
    const { jobId } = (await real.call("POST", "/api/image/generate", { json: { name: "n", prompt: "p" } }))
      .body;
    let body = (await real.call("GET", `/api/image/${jobId}`)).body;
    // Read back within its 40 ms, it was still running (a busy machine may read it later).
    if (Date.now() - started < 40) expect(body.status).toMatch(/^inference_/);
    while (!body.downloadUrl) {
      await sleep(5);
      body = (await real.call("GET", `/api/image/${jobId}`)).body;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    // Unscaled, an image takes 20 s.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
