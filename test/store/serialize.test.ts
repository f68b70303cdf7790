import { defaultDeserialize, defaultSerialize } from "@keyv/serialize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/store/serialize.js";

/** JSON-like values with the cases keyv escapes: strings (and keys) starting with ":", Buffers. */
const tricky = fc.oneof(fc.constantFrom(":", "::", ":base64:AAEC", ':"', "a:b", '",":x'), fc.string());
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
    fc.array(tie("any"), { maxLength: 4 }),
    fc.dictionary(tricky, tie("any"), { maxKeys: 4 }),
  ),
})).any;

describe("the store's serializer", () => {
  it("writes exactly keyv's text, so records written before and after read alike", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(serialize({ value: v, expires: 5 })).toBe(defaultSerialize({ value: v, expires: 5 }));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads keyv's text as keyv does: escaped colons and Buffers come back", () => {
    fc.assert(
      fc.property(value, (v) => {
        const text = defaultSerialize({ value: v });
        expect(deserialize(text)).toEqual(defaultDeserialize(text));
      }),
      { numRuns: 2000 },
    );
    const text = defaultSerialize({ value: { name: ":smile:", data: Buffer.from([1, 2]) } });
    expect(deserialize(text)).toEqual({ value: { name: ":smile:", data: Buffer.from([1, 2]) } });
  });
});
