import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "./media-api/index.js";
import { type HttpProxy, type ProxiedAnswer, startProxy } from "./proxy.js";

let emulator: Emulator;
let proxy: HttpProxy;

beforeAll(async () => {
  emulator = await startEmulator({ timeScale: 0.001 });
  proxy = await startProxy(emulator.url);
});
afterAll(async () => {
  await proxy.close();
  await emulator.close();
});

const generate = (prompt: string, signal?: AbortSignal) =>
  fetch(`${proxy.url}/api/image/generate`, {
    method: "POST",
    headers: { "x-api-key": "test-key", "content-type": "application/json" },
    body: JSON.stringify({ name: prompt, prompt }),
    ...(signal && { signal }),
  });

describe("the proxy in front of a fake", () => {
  it("passes requests and answers through unchanged", async () => {
    const res = await fetch(`${proxy.url}/api/usage?x=1`, { headers: { "x-api-key": "test-key" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ plan: expect.any(String) });
    const missing = await fetch(`${proxy.url}/api/usage`);
    expect(missing.status).toBe(401);
    expect(proxy.requests.slice(-2)).toEqual([
      expect.objectContaining({ method: "GET", path: "/api/usage" }),
      expect.objectContaining({ method: "GET", path: "/api/usage" }),
    ]);
  });

  it("applies a request whose answer it holds past the client's timeout: the client cannot tell it went through", async () => {
    proxy.delayAnswer({ method: "POST", path: "/api/image/generate", ms: 600 });
    const answered: ProxiedAnswer[] = [];
    const relayed: ProxiedAnswer[] = [];
    const stopAnswer = proxy.onAnswer((a) => answered.push(a));
    const stopRelayed = proxy.onRelayed((a) => relayed.push(a));

    const started = Date.now();
    await expect(generate("late fox", AbortSignal.timeout(150))).rejects.toThrow(/abort|timeout/i);
    expect(Date.now() - started).toBeLessThan(550);

    // The service created the job and charged for it; its answer simply never reached the client.
    const [call] = emulator
      .callsTo("POST", "/api/image/generate")
      .filter((c) => c.json && JSON.stringify(c.json).includes("late fox"));
    expect(call?.status).toBe(200);
    expect(answered).toEqual([expect.objectContaining({ path: "/api/image/generate", status: 200 })]);
    expect(emulator.account("test-key").creditsUsed).toBe(1);
    // Held back, then dropped, since nobody waits for it any more.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(relayed).toEqual([]);
    stopAnswer();
    stopRelayed();
  });

  it("delays only as many matching requests as asked, and answers them once the delay is over", async () => {
    proxy.delayAnswer({ path: /^\/api\/image\//, ms: 300, times: 1 });
    const started = Date.now();
    const slow = await generate("slow fox");
    const slowMs = Date.now() - started;
    const quick = await generate("quick fox");
    const quickMs = Date.now() - started - slowMs;

    expect(slow.status).toBe(200);
    expect(await slow.json()).toMatchObject({ jobId: expect.any(String) });
    expect(slowMs).toBeGreaterThanOrEqual(290);
    expect(quick.status).toBe(200);
    expect(quickMs).toBeLessThan(290);
  });

  it("tells a listener of each request as it arrives, and stops when unsubscribed", async () => {
    const seen: string[] = [];
    const stop = proxy.onRequest((r) => seen.push(`${r.method} ${r.path}`));
    await (await generate("told fox")).text();
    stop();
    await (await generate("untold fox")).text();
    expect(seen).toEqual(["POST /api/image/generate"]);
  });

  it("answers 502 when the fake is gone", async () => {
    const gone = await startEmulator();
    const orphan = await startProxy(gone.url);
    await gone.close();
    const res = await fetch(`${orphan.url}/api/usage`);
    expect(res.status).toBe(502);
    await orphan.close();
  });
});
