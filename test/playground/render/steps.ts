import { STEPS, stepInputs, USER_INPUT } from "../../../src/slack/steps.js";
import type { FunctionExecution } from "../../fakes/slack/index.js";
import { escapeHtml, media } from "./html.js";

/**
 * The Slack pane's Workflows tab: a form per workflow step of the app (what a workflow passes to
 * the step, here typed by hand), and the runs of the person acting, newest first, as Workflow
 * Builder's activity shows them: running, completed with its outputs, or failed with the reason.
 */

type Input = { name: string; type: string; title: string; choices?: readonly string[]; required?: boolean };

function field(input: Input): string {
  const label = `${escapeHtml(input.title)}${input.required ? " *" : ""}`;
  const name = escapeHtml(input.name);
  if (input.choices)
    return `<label>${label}<select name="${name}"><option value=""></option>${input.choices
      .map((c) => `<option>${escapeHtml(c)}</option>`)
      .join("")}</select></label>`;
  if (input.type === "boolean")
    return `<label class="check"><input type="checkbox" name="${name}" value="true"> ${label}</label>`;
  if (input.type === "integer") return `<label>${label}<input type="number" name="${name}"></label>`;
  if (input.type === "slack#/types/file_id")
    return `<label>${label}<input type="file" name="${name}" accept="image/*"></label>`;
  return `<label>${label}<input name="${name}" autocomplete="off"></label>`;
}

/** The forms, drawn once: the page keeps what is typed in them while runs change below. */
export function stepForms(): string {
  return STEPS.map((step) => {
    const inputs: Input[] = Object.entries(stepInputs(step)).map(([name, p]) => ({
      name,
      ...p,
    }));
    return `<form class="step" data-act="slack-step" data-step="${escapeHtml(step.callbackId)}">
<div class="step-title">⚡ ${escapeHtml(step.title)}</div><div class="step-help">${escapeHtml(step.description)}. Runs as the person you act as (its hidden <code>${USER_INPUT}</code> input).</div>
${inputs.map(field).join("")}<button type="submit">Run step</button></form>`;
  }).join("");
}

function outputs(run: FunctionExecution): string {
  const out = run.outputs ?? {};
  const rows = Object.entries(out)
    .map(
      ([key, value]) => `<div><span class="key">${escapeHtml(key)}</span> ${escapeHtml(String(value))}</div>`,
    )
    .join("");
  const url = typeof out.url === "string" ? out.url : undefined;
  const video = run.callbackId === "make_avatar_video" || run.callbackId === "make_cinematic_video";
  return rows + (url ? media(url, "result", video ? "video/mp4" : "image/png") : "");
}

/** The runs of `person`'s steps, newest first. */
export function stepRuns(runs: readonly FunctionExecution[], person: string): string {
  const mine = runs.filter((r) => (r.inputs[USER_INPUT] as { id?: string } | undefined)?.id === person);
  if (mine.length === 0) return `<div class="empty">No workflow step has run for you yet.</div>`;
  const title = (id: string) => STEPS.find((s) => s.callbackId === id)?.title ?? id;
  return `<div class="runs-title">Your runs, newest first</div>${mine
    .slice()
    .reverse()
    .map((run) => {
      const status =
        run.state === "running"
          ? "⏳ running"
          : run.state === "completed"
            ? "✅ completed (functions.completeSuccess)"
            : "❌ failed (functions.completeError)";
      const body =
        run.state === "failed" ? `<div class="reason">${escapeHtml(run.error ?? "")}</div>` : outputs(run);
      return `<div class="run"><div class="run-title">${escapeHtml(title(run.callbackId))} · ${status}</div>${body}</div>`;
    })
    .join("")}<div class="runs-title">Run a step</div>`;
}
