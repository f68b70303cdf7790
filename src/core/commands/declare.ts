import { z } from "zod";
import type { Json } from "../base/ports.js";
import { newSeed, seed, text, titleFrom } from "./options.js";

/**
 * An option of a command that starts a job is declared once, in its command's schema: how it is
 * checked (the zod schema) and, through `serves`, the field of the service's creation request it
 * fills. Everything that maps options to requests or back reads that: the request a command sends
 * (requestOf), "How it was made" (render/recipe.ts), Remix and Regenerate, Save as preset, and the
 * follow-up forms. Adding a setting to a command is then one line of its schema.
 *
 * The declaration is zod metadata (a registry keyed by the schema), so it goes wherever the schema
 * goes: `.pick` for a follow-up's form, `.extend` for the options every job command takes. It is
 * also where a later translation attaches an option's words (its label, description and choices).
 */

export interface OptionMeta {
  /** The service's request field the option fills: "aspectRatio". */
  field: string;
  /** How a kept value reads in "How it was made" ("8 s", "Luxury macro"); a flag shows only with it. */
  show?: (value: z.$output) => string;
  /** The job's name: its title says it already, and a Remix names its result anew. */
  names?: true;
  /** When left out, the first words of this option's value (a name from the prompt). */
  titledFrom?: string;
  /** What Regenerate sends in place of the kept value: a new seed, for a new result. */
  redraw?: (previous: Json | undefined) => Json;
}

const DECLARED = z.registry<OptionMeta>();

/** A schema's type that also says which request field it fills; `Always`: the request always has it. */
declare const FIELD: unique symbol;
export type Serving<T extends z.ZodType, F extends string, Always extends boolean = false> = T & {
  readonly [FIELD]?: { field: F; always: Always };
};

/** `schema`, declared to fill the service's request field `field`. */
export function serves<const F extends string, T extends z.ZodType>(
  field: F,
  schema: T,
  meta: Omit<z.core.$replace<OptionMeta, T>, "field" | "names" | "titledFrom"> = {},
): Serving<T, F> {
  DECLARED.add(schema, { ...meta, field });
  return schema;
}

/**
 * The name the service keeps the job under. With `from`, a name left out is the first words of
 * that option's value; without, the command names it itself (an avatar video from its script or
 * its avatar).
 */
export function jobName(description: string, from: string): Serving<z.ZodOptional<z.ZodString>, "name", true>;
export function jobName(description: string): Serving<z.ZodOptional<z.ZodString>, "name">;
export function jobName(description: string, from?: string): z.ZodOptional<z.ZodString> {
  const schema = text(100, description).optional();
  DECLARED.add(schema, { field: "name", names: true, ...(from !== undefined && { titledFrom: from }) });
  return schema;
}

/** The seed of a reproducible result, which Regenerate draws anew (anything but the last one). */
export const seedOption = serves("seed", seed.optional(), {
  redraw: (previous) => newSeed(typeof previous === "number" ? previous : undefined),
});

/** A declared option of a command or form, by its option name. */
export type Declared = z.core.$replace<OptionMeta, z.ZodType> & { option: string };

/** The options of `options` that fill a request field, in their order. */
export function declaredOf(options: z.ZodObject): Declared[] {
  return Object.entries(options.shape).flatMap(([option, schema]) => {
    const meta = DECLARED.get(schema);
    return meta ? [{ ...meta, option }] : [];
  });
}

type Brand<T> = T extends { readonly [FIELD]?: infer B } ? Exclude<B, undefined> : never;
type FieldOf<T> = Brand<T> extends { field: infer F extends string } ? F : never;
type Always<T> = Brand<T> extends { always: true } ? true : false;
type Given<V, K extends keyof V> = undefined extends V[K] ? false : true;

/**
 * The request `values` make, typed from what is given: a field whose value is always given is
 * required, one that may be left out optional, one the declaration always fills (a name) a string.
 */
export type RequestOf<S extends z.core.$ZodShape, V> = {
  [K in keyof S & keyof V as Given<V, K> extends true ? FieldOf<S[K]> : never]: V[K];
} & {
  [K in keyof S & keyof V as Given<V, K> extends true
    ? never
    : Always<S[K]> extends true
      ? never
      : FieldOf<S[K]>]?: Exclude<V[K], undefined>;
} & {
  [K in keyof S as Always<S[K]> extends true ? FieldOf<S[K]> : never]: string;
};

/**
 * The service's request from a command's option values: each declared option's value under its
 * field, those left out omitted (the service's default applies), a name left out made from the
 * option it is titled from. Values of options that fill no field (delivery, files) stay out.
 */
export function requestOf<S extends z.core.$ZodShape, V extends Record<string, unknown>>(
  options: z.ZodObject<S>,
  values: V,
): RequestOf<S, V> {
  const request: Record<string, unknown> = {};
  for (const { option, field, titledFrom } of declaredOf(options)) {
    const value = values[option];
    const from = titledFrom === undefined ? undefined : values[titledFrom];
    if (value !== undefined) request[field] = value;
    else if (typeof from === "string") request[field] = titleFrom(from);
  }
  return request as RequestOf<S, V>;
}

/** The options redraw a value on Regenerate (a seed): the result can come out otherwise. */
export function redraws(options: z.ZodObject): boolean {
  return declaredOf(options).some((declared) => declared.redraw !== undefined);
}

/** A kept request as Regenerate sends it again: the same, with what the options redraw drawn anew. */
export function redrawn(
  options: z.ZodObject,
  previous: { [field: string]: Json },
): { [field: string]: Json } {
  const request = { ...previous };
  for (const { field, redraw } of declaredOf(options)) if (redraw) request[field] = redraw(previous[field]);
  return request;
}
