import { cut, isErrorLike, loggedError, read } from "./logged-error.js";

/**
 * The size of what a log line may hold. Every logged value is copied bounded before it is written
 * (`bounded`: errors as logged-error.ts says, bytes and files as their size, long strings, arrays
 * and objects cut, cycles broken), and every written line, whatever produced it, is at most
 * LINE_MAX_BYTES (`capLine`): a longer one is written again smaller, still one JSON object, with
 * `truncated` saying how long it was.
 */

/** The most bytes of one log line, after redaction. */
export const LINE_MAX_BYTES = 16 * 1024;

export interface Bounds {
  /** Characters of a string. */
  chars: number;
  /** Items of an array. */
  items: number;
  /** Keys of an object. */
  keys: number;
  /** Nesting. */
  depth: number;
}

/** What the bot's own fields get. */
export const FIELD_BOUNDS: Bounds = { chars: 1000, items: 20, keys: 50, depth: 6 };

/** Ever tighter, for a line over the cap. */
const SHRINKING: Bounds[] = [
  { chars: 300, items: 10, keys: 30, depth: 5 },
  { chars: 80, items: 5, keys: 15, depth: 3 },
];
/** All a line keeps when even the tightest bounds leave it too long. */
const ESSENTIALS = ["level", "time", "pid", "hostname", "name", "component", "jobId", "msg"];

/** Bytes and files are told by their size, a form or a stream by its kind: never their content. */
function opaque(value: object): string | undefined {
  try {
    if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
    if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer)
      return `[${value.constructor.name} ${value.byteLength} bytes]`;
    if (value instanceof Blob) return `[${value.constructor.name} ${value.size} bytes]`;
    if (value instanceof FormData) return "[FormData]";
    if (value instanceof URLSearchParams) return "[URLSearchParams]";
    if (value instanceof Map || value instanceof Set) return `[${value.constructor.name} of ${value.size}]`;
    if (typeof read(value, "pipe") === "function" || typeof read(value, "getReader") === "function")
      return `[${value.constructor?.name ?? "stream"}]`;
  } catch {
    return "[unreadable]";
  }
  return undefined;
}

function walk(value: unknown, bounds: Bounds, depth: number, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
      return cut(value, bounds.chars);
    case "number":
    case "boolean":
      return value;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (isErrorLike(object)) return loggedError(object);
  const kind = opaque(object);
  if (kind !== undefined) return kind;
  if (ancestors.has(object)) return "[Circular]";
  try {
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (object instanceof URL) return cut(object.href, bounds.chars);
    const array = Array.isArray(object);
    if (depth >= bounds.depth) return array ? "[Array]" : "[Object]";
    ancestors.add(object);
    try {
      if (array) {
        const items = object
          .slice(0, bounds.items)
          .map((item) => walk(item, bounds, depth + 1, ancestors) ?? null);
        if (object.length > bounds.items) items.push(`… ${object.length - bounds.items} more items`);
        return items;
      }
      const keys = Object.keys(object);
      const out: Record<string, unknown> = {};
      for (const key of keys.slice(0, bounds.keys)) {
        const bounded = walk(read(object, key), bounds, depth + 1, ancestors);
        if (bounded !== undefined) out[key] = bounded;
      }
      if (keys.length > bounds.keys) out["…"] = `${keys.length - bounds.keys} more keys`;
      return out;
    } finally {
      ancestors.delete(object);
    }
  } catch {
    // A proxy whose traps throw, an object whose keys cannot be listed.
    return "[unreadable]";
  }
}

/** A copy of `value` fit for a log line (see above). */
export function bounded(value: unknown, bounds: Bounds = FIELD_BOUNDS): unknown {
  return walk(value, bounds, 0, new Set());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;

/** `text` (a JSON line) if it is at most LINE_MAX_BYTES, else a smaller JSON line saying it was cut. */
export function capLine(text: string): string {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most lines are known short without counting.
  if (text.length * 3 <= LINE_MAX_BYTES) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= LINE_MAX_BYTES) return text;
  const truncated = { bytes, limit: LINE_MAX_BYTES };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) return line({ msg: cut(text, 1000), truncated });
  // What the line is (level, time, message, which job) stays whatever else is cut.
  const essential: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed))
    (ESSENTIALS.includes(key) ? essential : rest)[key] = value;
  for (const bounds of SHRINKING) {
    const smaller = line({
      ...(bounded(essential, bounds) as object),
      ...(bounded(rest, bounds) as object),
      truncated,
    });
    if (Buffer.byteLength(smaller) <= LINE_MAX_BYTES) return smaller;
  }
  return line({ ...(bounded(essential, SHRINKING[SHRINKING.length - 1]) as object), truncated });
}
