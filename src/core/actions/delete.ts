import { z } from "zod";
import type { MessageKey } from "../i18n/catalogues.js";
import { msg } from "../i18n/msg.js";
import { DELETE_RESULT } from "../render/delete.js";
import { defineAction } from "./define.js";

/**
 * Delete under a finished result: its requester or an admin removes its message (flows/delete.ts
 * decides and does it); the question asked first carries the value "sure".
 */
export const deleteResult = defineAction({
  name: DELETE_RESULT,
  value: z.literal("sure", { error: "delete.not_this" satisfies MessageKey }).optional(),
  who: "requester",
  // One deletion of a job at a time; given back at its end, so that one the platform refused may
  // be tried again. Longer than a deletion takes (two platform calls and a store write).
  claim: {
    key: (job) => `delete:${job.id}`,
    ttlMs: 30_000,
    refusal: msg("delete.being_deleted"),
    releaseWhenDone: true,
  },
  othersTold: "refusal.access.not_requester_delete",
  button: { label: msg("action.delete"), style: "danger" },
  // Its button is drawn as the result is delivered, so "ended" rather than "delivered".
  appliesTo: (job) => job.state === "done" || job.state === "failed",
  run: (ctx) => ctx.deleteResult(ctx.value === "sure"),
});
