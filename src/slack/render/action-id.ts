import { SLACK_LIMITS } from "../limits.js";

/**
 * Buttons and selects carry what the core needs to route a click: our action, the job id and, for
 * buttons, the value ("1", "2"). Everything is in the action_id, so it is unique within its block
 * (Keep 1 and Keep 2 share action and job) and survives restarts without any lookup.
 */

export interface ActionKey {
  action: string;
  jobId: string;
  value?: string;
}

const PREFIX = "media";
export const ACTION_ID = /^media:/;

export function encodeActionId(key: ActionKey): string {
  const parts = [PREFIX, key.action, key.jobId, ...(key.value === undefined ? [] : [key.value])];
  const id = parts.map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join(":");
  if (id.length > SLACK_LIMITS.actionId) {
    throw new Error(
      `action_id of ${key.action} for job ${key.jobId} is over ${SLACK_LIMITS.actionId} characters`,
    );
  }
  return id;
}

export function decodeActionId(actionId: string): ActionKey | undefined {
  const [prefix, action, jobId, value, ...rest] = actionId.split(":");
  if (prefix !== PREFIX || !action || !jobId || rest.length > 0) return undefined;
  try {
    return {
      action: decodeURIComponent(action),
      jobId: decodeURIComponent(jobId),
      ...(value !== undefined && { value: decodeURIComponent(value) }),
    };
  } catch {
    return undefined;
  }
}
