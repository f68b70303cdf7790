/**
 * The custom_id of a button or select on a job's message: "mb1:<action>:<job id>[:<value>]".
 * The version prefix lets a later format change without misreading old messages: a click on a
 * control this version cannot read gets "run the command again" instead of a wrong action.
 */

export interface ControlId {
  /** The core's action: "confirm", "confirm_both", "regenerate", "animate", ... */
  action: string;
  /** Our job id (the store's, not the service's). */
  jobId: string;
  /** A button's fixed value ("1", "2"); a select's value comes with the click instead. */
  value?: string;
}

const PREFIX = "mb1";
const SEPARATOR = ":";
// 3 + 1 + 24 + 1 + 32 + 1 + 38 = 100: any parts these accept fit in Discord's custom_id.
const ACTION = /^[a-z][a-z0-9_]{0,23}$/;
const JOB_ID = /^[\w-]{1,32}$/;
// Separator-free, so a value never shifts the fields that follow it.
const VALUE = /^[\w.-]{1,38}$/;

export function encodeControlId(control: ControlId): string {
  const { action, jobId, value } = control;
  if (!ACTION.test(action)) throw new RangeError(`"${action}" cannot be a control action`);
  if (!JOB_ID.test(jobId)) throw new RangeError(`"${jobId}" cannot be a job id in a custom_id`);
  if (value !== undefined && !VALUE.test(value)) throw new RangeError(`"${value}" cannot be a control value`);
  return [PREFIX, action, jobId, ...(value === undefined ? [] : [value])].join(SEPARATOR);
}

/** The control a custom_id stands for; undefined for ids of another format or version. */
export function decodeControlId(customId: string): ControlId | undefined {
  const [prefix, action, jobId, value, ...rest] = customId.split(SEPARATOR);
  if (prefix !== PREFIX || rest.length > 0) return undefined;
  if (!action || !ACTION.test(action) || !jobId || !JOB_ID.test(jobId)) return undefined;
  if (value !== undefined && !VALUE.test(value)) return undefined;
  return { action, jobId, ...(value !== undefined && { value }) };
}
