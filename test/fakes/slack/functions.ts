import { watched } from "../watch.js";
import { fail, isFailure, type Method, str } from "./methods/args.js";
import type { SlackState } from "./state.js";

/**
 * Workflow steps of the app (custom functions run by the app itself): Slack starts an execution,
 * sends `function_executed` with a token of the execution's own, and waits until the app calls
 * functions.completeSuccess or functions.completeError with that token. As Slack does:
 * - the function's token is valid while its execution runs and for a limited time (15 minutes,
 *   per Slack's maintainers; `functionTokenTtlMs` shortens it), and the fake accepts it only for
 *   these two methods (the app calls everything else with its bot token);
 * - an execution completes once: later calls answer `execution_not_in_running_state`.
 * What Slack answers for an expired function token is not documented: the fake says
 * `token_expired`.
 */

export const FUNCTION_TOKEN_TTL_MS = 15 * 60_000;

export interface FunctionExecution {
  id: string;
  callbackId: string;
  teamId: string;
  inputs: Record<string, unknown>;
  token: string;
  startedAt: number;
  state: "running" | "completed" | "failed";
  outputs?: Record<string, unknown>;
  error?: string;
  /** Every call that tried to complete it, in order, with Slack's answer. */
  attempts: { method: string; answer: string }[];
}

function outputsOf(value: unknown): Record<string, unknown> | undefined {
  const parsed = typeof value === "string" ? safeJson(value) : value;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The execution the call's token and its function_execution_id name, or the refusal. */
function running(state: SlackState, token: string | undefined, executionId: string | undefined) {
  const execution = executionId ? state.executions.get(executionId) : undefined;
  if (!execution || execution.token !== token) return fail("invalid_arguments");
  if (execution.state !== "running") return fail("execution_not_in_running_state");
  if (Date.now() - execution.startedAt > state.functionTokenTtlMs) return fail("token_expired");
  return execution;
}

function complete(
  method: string,
  end: (execution: FunctionExecution, args: Record<string, unknown>) => string | undefined,
): Method {
  return {
    token: "function",
    run({ state, args, token }) {
      const found = running(state, token, str(args, "function_execution_id"));
      const record = (answer: string) => {
        const execution = state.executions.get(str(args, "function_execution_id") ?? "");
        execution?.attempts.push({ method, answer });
      };
      if (isFailure(found)) {
        record(found.error);
        return found;
      }
      const refused = end(found, args);
      record(refused ?? "ok");
      return refused ? fail(refused) : { ok: true };
    },
  };
}

export const functionMethods: Record<string, Method> = {
  "functions.completeSuccess": complete("functions.completeSuccess", (execution, args) => {
    const outputs = outputsOf(args.outputs);
    if (!outputs) return "invalid_arguments";
    Object.assign(execution, { state: "completed", outputs });
    return undefined;
  }),
  "functions.completeError": complete("functions.completeError", (execution, args) => {
    const error = str(args, "error");
    watched.shown("slack", "functions.completeError", { text: error });
    if (!error) return "invalid_arguments";
    Object.assign(execution, { state: "failed", error });
    return undefined;
  }),
};
