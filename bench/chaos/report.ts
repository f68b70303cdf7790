/**
 * bench/results/chaos.json (everything, every kill) and chaos.md (the figures a reader checks:
 * nothing lost, nothing posted twice, no creation call repeated, recovery after a kill).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Kill, Summary } from "./campaign.js";

export interface RunReport {
  name: string;
  instances: string[];
  summary: Summary;
  missedMoments: Record<string, number>;
  unexpectedExits: number;
  durationMs: number;
  kills: Kill[];
}

export interface Settings {
  command: string;
  timeScale: number;
  entry: string;
  concurrency: number;
  seed: number;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const outageFirst = (s: Summary, i: number) => {
  const ms = s.outages?.firstResultMs[i];
  return ms === null || ms === undefined ? "none" : seconds(ms);
};

function rows(run: RunReport): string[] {
  const s = run.summary;
  const kills = Object.entries(s.kills)
    .map(([moment, n]) => `${moment} ${n}`)
    .join(", ");
  const missed = Object.entries(run.missedMoments)
    .map(([moment, n]) => `${moment} ${n}`)
    .join(", ");
  return [
    `| kills (by moment) | ${run.kills.length} (${kills})${missed ? `; moments that did not come in 10 s (the next one was armed): ${missed}` : ""} |`,
    `| commands sent | ${s.commandsSent} (${s.notAcknowledged} never acknowledged: the bot died before its ack) |`,
    `| creation calls | ${s.creationCalls} |`,
    `| commands with two creation calls | **${s.commandsWithRepeatedCreation.length}** ${s.commandsWithRepeatedCreation.join(", ")} |`,
    `| acknowledged, no job created (killed during the upload or before the call) | ${s.noJobCreated} |`,
    `| job never recorded (killed during the creation call, or after its answer before the record), reconciled: in the service's lists | ${s.answerLost.commands} (${s.answerLost.inServiceLists} in the service's lists; result posted anyway: ${s.answerLost.resultPostedAnyway}) |`,
    `| results expected / posted once | ${s.expectedResults} / ${s.delivered} |`,
    `| results lost | **${s.lost.length}** ${s.lost.slice(0, 12).join(", ")}${s.lost.length > 12 ? ", …" : ""} |`,
    `| results posted twice | **${s.postedTwice.length}** ${s.postedTwice.join(", ")} |`,
    `| confirm calls | ${s.confirmCalls} |`,
    `| kill -> first status read of a job polled before the kill: p50 / p95 / max | **${seconds(s.recovery.p50)} / ${seconds(s.recovery.p95)} / ${seconds(s.recovery.max)}** (${s.recovery.measured} kills measured; ${s.recovery.none} with jobs that were never read again) |`,
    `| kill -> restarted process started: p50 / p95 / max | ${seconds(s.restartMs.p50)} / ${seconds(s.restartMs.p95)} / ${seconds(s.restartMs.max)} |`,
    ...(s.outages
      ? [
          `| store outages (redis stopped, then started again with its data): how long each | ${s.outages.awayMs.map(seconds).join(", ")} |`,
          `| store back -> first / last result posted of those under way when it left (each outage) | **${s.outages.resumedMs
            .map(
              (ms, i) =>
                `${outageFirst(s, i)} / ${ms === null ? "not all in 30 s" : seconds(ms)} (${s.outages?.waiting[i]} results)`,
            )
            .join("; ")}** |`,
        ]
      : []),
    ...(s.promotions
      ? [
          `| Redis primary killed, replica promoted: kill -> promotion (each) | ${s.promotions.promotedMs.map(seconds).join(", ")} |`,
          `| promotion -> both instances ready again (/readyz 200), each | **${s.promotions.readyMs.map((ms) => (ms === null ? "not in 30 s" : seconds(ms))).join(", ")}** |`,
          `| promotion -> first / last result posted of those waiting at the kill (each) | ${s.promotions.resultsMs
            .map((ms, i) => {
              const first = s.promotions?.firstResultMs[i];
              const waiting = s.promotions?.waiting[i] ?? 0;
              if (waiting === 0) return "none waiting";
              return `${first === null || first === undefined ? "none" : seconds(first)} / ${ms === null ? "not all in 30 s" : seconds(ms)} (${waiting})`;
            })
            .join("; ")} |`,
        ]
      : []),
    `| bot exits nobody caused | ${run.unexpectedExits} |`,
    `| run time | ${seconds(run.durationMs)} |`,
  ];
}

export function write(
  outDir: string,
  settings: Settings,
  runs: RunReport[],
  /** The files' name: chaos, or chaos-sentinel for the run whose Redis primary is killed. */
  name = "chaos",
): { json: string; md: string } {
  mkdirSync(outDir, { recursive: true });
  const date = new Date().toISOString();
  const json = join(outDir, `${name}.json`);
  writeFileSync(json, `${JSON.stringify({ date, settings, runs }, null, 2)}\n`);
  const m = settings.machine;
  const lines = [
    "# Benchmark: chaos (SIGKILL of the bot at chosen moments of the job life)",
    "",
    `${date} - ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}`,
    "",
    `Command: \`${settings.command}\`. The bot: \`${settings.entry === "dist" ? "node dist/main.js" : "node --import tsx src/main.ts"}\`; emulator time scale ${settings.timeScale}; ${settings.concurrency} commands in flight; seed ${settings.seed}.`,
    "",
  ];
  for (const run of runs) {
    lines.push(`## ${run.name}`, "", "| | |", "|---|---|", ...rows(run), "");
  }
  lines.push(
    "## How it works",
    "",
    "- The bot runs as in production, configured by env (MEDIA_API_URL, DISCORD_TOKEN + DISCORD_REST_URL, SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET + SLACK_API_URL, STORE_URL, INSTANCE_ID), against the media API emulator, the fake Discord and the fake Slack, each behind an HTTP proxy (test/fakes/proxy.ts) that tells the campaign when a request of some kind is in flight.",
    '- The mix: image generate, image edit with a file, avatar video, cinematic video, photo-avatar design then Keep 1 or Keep both, mockup asset, thumbnail; on Discord and on Slack in turn (while an upload or a confirm moment is armed, the next commands are those that offer it). Each command carries a tag (`chaos-17`) in its prompt or name, so creation calls (the emulator\'s record) and results (the "is ready" / "failed" notices in the chats, or the finished card posted for the requester of a job whose own message was never recorded) are counted per command. Keep is clicked as a user would: again when the bot did not answer the click, and again when the buttons still (or again) show 8 s after an answered click (a kill swallowed it before it reached the service).',
    "- The moments, in turn: `creation` kills once the service answered a creation call, before the answer reaches the bot (the answer is lost; such commands are counted apart, not as lost results); `polling` as a status read arrives; `confirm` once the service applied a Keep 1 / Keep both, before its answer reaches the bot; `upload` as the file's initialize or finalize call arrives; `post` once the chat answered a result post or edit, before the bot could record it. After a pause drawn in [0, 1 s] the next moment is armed; a moment that does not come within 10 s passes its turn.",
    "- With `--pair-store redis`, the two-instance run has one more moment, `store`: once a status read is under way, the redis-server is stopped (SIGTERM: it saves its data) for 15 to 60 s and started again on the same port with that data, both instances running on; commands sent meanwhile are refused (no creation call), and its recovery is the time from the store's return to the first and to the last result posted of the jobs shown as running when it left (a photo avatar's variants wait for a click, so its last may come later).",
    "- With `--pair-store sentinel`, the two instances find their Redis through three sentinels (REDIS_SENTINELS), in front of a primary and its replica (real redis-server processes, the primary taken for down after 1 s), and every other moment is `primary`: once a creation call or a status read is in flight, the Redis primary is SIGKILLed; the sentinels promote the replica; the killed node comes back as the new primary's replica and is in sync before the next moment, so that every primary kill is a promotion. Measured from the promotion: both instances ready again (`/readyz` 200), and the first and last result posted of the jobs shown as running when the primary died.",
    "- Recovery is the time from the kill to the first status read, by whichever instance, of a job the killed instance polled in the 15 s before the kill and that still ran at the service (finished jobs and jobs waiting for a choice are rightly not read again). With two instances the killed one is restarted only once the survivor read such a job (or after 30 s), so the figure is the survivor's takeover.",
    "- A result is lost when an acknowledged command whose creation call the service accepted has no notice once the drain is over; posted twice when it has two. A command whose process was killed after the service took its creation call and before the bot recorded the job (it then never shows a job message) is counted with the lost answers, whatever moment the kill was armed for: the bot never learnt of that job.",
    "- Every bot process's log, the store and a trace of the chats and the service's calls are kept per run (`--logs DIR`, default a temp dir named at the end), so that each lost or doubled tag can be traced.",
    "",
  );
  const md = join(outDir, `${name}.md`);
  writeFileSync(md, `${lines.join("\n")}`);
  return { json, md };
}
