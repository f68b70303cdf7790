import { defaultDeserialize, defaultSerialize } from "@keyv/serialize";

/**
 * Keyv's own text format, written and read at the speed of the native JSON functions. Keyv's
 * serializer walks every value in JavaScript and its deserializer runs a reviver on every value,
 * only to escape strings that start with ":" (as "::...") and to spell Buffers ":base64:...";
 * measured with bench/jobs, the two were among the largest costs of a job record's update.
 *
 * The text is the same as keyv's, so records written before and after read alike: a value whose
 * JSON has neither a string starting with ":" nor a Buffer is the same text in both formats, and
 * any other value goes through keyv's own functions.
 */

/**
 * A JSON string token opening with ":": after the start, or after what can precede a string
 * (`{ [ , :`). Inside a string a quote is escaped (`\"`), so this never matches there. A key
 * starting with ":" matches too (keyv leaves keys alone): it only takes the slow path.
 */
const COLON_STRING = /(?:^|[[{,:])":/;
/** What JSON.stringify makes of a Buffer (its toJSON), which keyv writes as ":base64:...". */
const BUFFER_JSON = '{"type":"Buffer","data":[';

export function serialize(data: unknown): string {
  if (data === undefined || data === null) return "null";
  const text = JSON.stringify(data);
  if (text === undefined || COLON_STRING.test(text) || text.includes(BUFFER_JSON))
    return defaultSerialize(data);
  return text;
}

export function deserialize<T>(text: string): T | undefined {
  return (COLON_STRING.test(text) ? defaultDeserialize(text) : JSON.parse(text)) as T | undefined;
}
