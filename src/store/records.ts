import type Keyv from "keyv";
import type { z } from "zod";
import type { Json } from "../common/types.js";
import { StoreError } from "./errors.js";
import { deserialize } from "./serialize.js";

/**
 * What `value` becomes once stored: the JSON text round trip drops undefined properties and turns
 * dates into strings, so a value reads back exactly as it was written.
 */
export function toJson(value: unknown): Json {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`${typeof value} is not storable as JSON`);
  return JSON.parse(text) as Json;
}

/**
 * A stored chat reference (a job's conversation or message) without its `live` part: the
 * gesture's short-lived credentials (a Discord interaction token, a Slack response_url), which
 * must not stay in a record kept for weeks.
 */
export function withoutLive(value: Json): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("live" in value)) return value;
  const { live: _live, ...rest } = value;
  return rest;
}

/**
 * Reads one record and checks it against its schema. A value that does not parse or does not
 * match is a `store.corrupt` error naming the namespace and key, never a crash somewhere later.
 */
export async function readRecord<T>(
  keyv: Keyv<unknown>,
  key: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  let stored: unknown;
  try {
    // Raw: keyv's envelope `{ value, expires }`, so a stored non-object is told from a missing key.
    stored = await keyv.get(key, { raw: true });
  } catch (error) {
    if (error instanceof SyntaxError) throw corrupt(keyv.namespace, key, "not JSON");
    throw error;
  }
  return checkRecord(keyv.namespace, key, stored, schema);
}

/**
 * `readRecord` for a record's stored text (read past keyv, see swap.ts): an expired record is
 * absent, as keyv would have it.
 */
export function parseRecord<T>(
  namespace: string | undefined,
  key: string,
  text: string,
  schema: z.ZodType<T>,
  now = Date.now(),
): T | undefined {
  let stored: unknown;
  try {
    stored = deserialize(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw corrupt(namespace, key, "not JSON");
    throw error;
  }
  if (stored === undefined || stored === null) return undefined;
  const expires = (stored as { expires?: unknown }).expires;
  if (typeof expires === "number" && now > expires) return undefined;
  return checkRecord(namespace, key, stored, schema);
}

/** Checks a keyv entry (`{ value, expires }`) read as it is stored; see `readRecord`. */
export function checkRecord<T>(
  namespace: string | undefined,
  key: string,
  stored: unknown,
  schema: z.ZodType<T>,
): T | undefined {
  if (stored === undefined) return undefined;
  if (typeof stored !== "object" || stored === null || !("value" in stored)) {
    throw corrupt(namespace, key, "not a keyv entry");
  }
  const parsed = schema.safeParse(stored.value);
  if (!parsed.success) throw corrupt(namespace, key, issuesOf(parsed.error));
  return parsed.data;
}

/**
 * A part of a record that the store keeps as plain JSON without reading it (a job's conversation,
 * written by an adapter), parsed by whoever reads it: a value that does not match is a
 * `store.corrupt` error naming the record and the part, as a whole record's would be.
 */
export function parsePart<T>(
  namespace: string,
  key: string,
  part: string,
  value: unknown,
  schema: z.ZodType<T>,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw corrupt(namespace, key, issuesOf(parsed.error, [part]));
  return parsed.data;
}

function issuesOf(error: z.ZodError, at: PropertyKey[] = []): string {
  return error.issues.map((i) => `${[...at, ...i.path].join(".") || "(root)"}: ${i.message}`).join("; ");
}

function corrupt(namespace: string | undefined = "", key: string, issues: string): StoreError {
  return new StoreError("store.corrupt", `corrupt record ${namespace}/${key}: ${issues}`, {
    details: { namespace, key, issues },
  });
}
