import { Usage } from "../schemas.js";
import type { Caller, CallOptions } from "./caller.js";

/** Spec 4.1. */
export function usage(c: Caller) {
  return {
    get: (opts?: CallOptions) => c.get("/api/usage", Usage, opts),
  };
}
