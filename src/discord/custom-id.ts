import { DISCORD_LIMITS } from "./limits.js";

/**
 * The custom_id of a button on a job's message (or a list's): "mb1:<action>:<job id>[:<value>]".
 * The version prefix lets a later format change without misreading old messages: a click on a
 * control this version cannot read gets "run the command again" instead of a wrong action.
 */

export interface ControlId {
  /** The core's action: "confirm", "confirm_both", "regenerate", "animate", ... */
  action: string;
  /** Our job id (the store's, not the service's). */
  jobId: string;
  /** The button's value ("1", "2", a list's page). */
  value?: string;
}

const PREFIX = "mb1";
const SEPARATOR = ":";
const ACTION = /^[a-z][a-z0-9_]{0,23}$/;
const JOB_ID = /^[\w-]{1,32}$/;
// Separator-free, so a value never shifts the fields that follow it. Together the parts must fit
// Discord's custom_id (a job's value is short; a list's page carries its search: see pageValue).
const VALUE = /^[\w.-]{1,64}$/;

export function encodeControlId(control: ControlId): string {
  const { action, jobId, value } = control;
  if (!ACTION.test(action)) throw new RangeError(`"${action}" cannot be a control action`);
  if (!JOB_ID.test(jobId)) throw new RangeError(`"${jobId}" cannot be a job id in a custom_id`);
  if (value !== undefined && !VALUE.test(value)) throw new RangeError(`"${value}" cannot be a control value`);
  const id = [PREFIX, action, jobId, ...(value === undefined ? [] : [value])].join(SEPARATOR);
  if (id.length > DISCORD_LIMITS.customId) throw new RangeError(`"${id}" is longer than a custom_id`);
  return id;
}

/** The control a custom_id stands for; undefined for ids of another format or version. */
export function decodeControlId(customId: string): ControlId | undefined {
  const [prefix, action, jobId, value, ...rest] = customId.split(SEPARATOR);
  if (prefix !== PREFIX || rest.length > 0 || customId.length > DISCORD_LIMITS.customId) return undefined;
  if (!action || !ACTION.test(action) || !jobId || !JOB_ID.test(jobId)) return undefined;
  if (value !== undefined && !VALUE.test(value)) return undefined;
  return { action, jobId, ...(value !== undefined && { value }) };
}
