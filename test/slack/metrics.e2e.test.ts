import { describe, expect, it } from "vitest";
import { registry } from "../../src/core/base/metrics.js";
import { type SlackWorld, slackWorldPerFile } from "./harness.js";

/**
 * What an operator reads on GET /metrics after real work: the registry is the one /metrics
 * serializes, fed by the command flow, the engine's hooks, the service's transport, the store
 * and Bolt's ack path, here over the real Bolt app and the media API emulator.
 */

let world: SlackWorld;
slackWorldPerFile((started) => {
  world = started;
});

/** A counter's value, or a histogram's count of observations, for the series with these labels. */
async function value(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await registry.getSingleMetric(name)!.get();
  const match = metric.values.find((v) => {
    const series = (v as { metricName?: string }).metricName;
    return (
      (series === undefined || series === `${name}_count`) &&
      Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)
    );
  });
  return match?.value ?? 0;
}

describe("metrics of a job from command to result", () => {
  it("counts the command, the job's states, its polls, its upload, the service calls and the store", async () => {
    await world.job("image generate a red fox in snow");
    await world.answer("video get no-such-video");

    expect(await value("mediabot_commands_total", { command: "image.generate", outcome: "ok" })).toBe(1);
    expect(
      await value("mediabot_commands_total", { command: "video.get", outcome: "service.not_found" }),
    ).toBe(1);
    expect(await value("mediabot_job_transitions_total", { kind: "image", state: "queued" })).toBe(1);
    expect(await value("mediabot_job_transitions_total", { kind: "image", state: "done" })).toBe(1);
    expect(await value("mediabot_polls_total", { kind: "image", outcome: "done" })).toBe(1);
    expect(await value("mediabot_deliveries_total", { kind: "image", outcome: "uploaded" })).toBe(1);
    expect(await value("mediabot_ack_seconds", { platform: "slack" })).toBeGreaterThanOrEqual(2);
    expect(
      await value("mediabot_service_request_seconds", { method: "GET", route: "/api/image/:id" }),
    ).toBeGreaterThanOrEqual(1);
    expect(await value("mediabot_service_errors_total", { code: "service.not_found" })).toBe(1);
    expect(await value("mediabot_store_seconds", { op: "set" })).toBeGreaterThan(0);
  });
});
