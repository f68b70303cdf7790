import type Keyv from "keyv";
import { z } from "zod";
import type { Platform } from "../common/types.js";
import { type Claims, withClaim } from "./claims.js";
import { readRecord } from "./records.js";

/**
 * What each person keeps between commands: their option defaults and their presets, in keyv
 * namespace `preferences`, one record per person and tenant (a Discord user has other defaults
 * in each server). A server's own defaults and published presets live in its tenant record.
 */

export type OptionValue = string | number | boolean;

/** Option values by option name, e.g. `{ aspect_ratio: "16:9", delivery: "private" }`. */
export type OptionValues = Record<string, OptionValue>;

/** A named set of option values, used with a command's `preset` option. */
export interface Preset {
  /** Unique per owner, compared without case; 1-32 characters. */
  name: string;
  values: OptionValues;
  /** The command it was saved from ("image.generate"), shown in lists; it applies to any command. */
  from: string | null;
  createdAt: number;
}

export interface PersonRef {
  platform: Platform;
  tenantId: string;
  userId: string;
}

export interface PersonPreferences {
  defaults: OptionValues;
  presets: Preset[];
  /** Epoch milliseconds of the last change, or null for a person who never set anything. */
  updatedAt: number | null;
}

export const optionValues = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
export const presetSchema = z.object({
  name: z.string().min(1).max(32),
  values: optionValues,
  from: z.string().nullable().default(null),
  createdAt: z.number().int().nonnegative(),
});

const recordSchema = z.object({
  defaults: optionValues.default({}),
  presets: z.array(presetSchema).default([]),
  updatedAt: z.number().int().nonnegative(),
});

const EMPTY: PersonPreferences = { defaults: {}, presets: [], updatedAt: null };

export class PreferenceStore {
  constructor(
    private readonly keyv: Keyv<unknown>,
    private readonly claims: Claims,
  ) {}

  async get(person: PersonRef): Promise<PersonPreferences> {
    return (await readRecord(this.keyv, personKey(person), recordSchema)) ?? EMPTY;
  }

  /**
   * Applies `change` to the person's record under a claim, so that two gestures of one person
   * (a panel click and a Save as preset) do not clobber each other. `change` may throw to refuse.
   */
  async update(
    person: PersonRef,
    change: (current: PersonPreferences) => Omit<PersonPreferences, "updatedAt">,
  ): Promise<PersonPreferences> {
    const key = personKey(person);
    return withClaim(this.claims, `lock:preferences:${key}`, async (lease) => {
      const current = (await readRecord(this.keyv, key, recordSchema)) ?? EMPTY;
      const next = recordSchema.parse({ ...change(current), updatedAt: Date.now() });
      await lease.confirm();
      await this.keyv.set(key, next);
      return next;
    });
  }
}

function personKey(person: PersonRef): string {
  return `${person.platform}:${person.tenantId}:${person.userId}`;
}
