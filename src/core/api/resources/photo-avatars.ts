import {
  DesignBothConfirmed,
  DesignConfirmed,
  JobCreated,
  PhotoAvatarStatus,
  SelfieAvatarCreated,
} from "../schemas.js";
import { type Caller, type CallOptions, path } from "./caller.js";

/** The allowed values and which fields are required are not specified. */
export interface AvatarDesign {
  gender?: string;
  age?: string;
  ethnicity?: string;
  outfit?: string;
  background?: string;
  isPortrait?: boolean;
}

/** Spec 4.5. */
export function photoAvatars(c: Caller) {
  return {
    /** Starts the design flow: poll until variants_ready, then confirm one or both. */
    createDesign: (
      input: { name: string; design: AvatarDesign; audioMediaId?: string },
      opts?: CallOptions,
    ) => c.post("/api/avatar/design/create", JobCreated, input, opts),
    confirm: (input: { jobId: string; variant: 1 | 2 }, opts?: CallOptions) =>
      c.post("/api/avatar/design/confirm", DesignConfirmed, input, opts),
    confirmBoth: (input: { jobId: string }, opts?: CallOptions) =>
      c.post("/api/avatar/design/confirm-both", DesignBothConfirmed, input, opts),
    /** Immediate: the avatar exists when this returns. */
    createFromSelfie: (
      input: { name: string; photoMediaId: string; audioMediaId?: string },
      opts?: CallOptions,
    ) => c.post("/api/avatar/from-selfie/create", SelfieAvatarCreated, input, opts),
    /** With an edit prompt: a job to poll, which creates the avatar when it completes. */
    enhanceSelfie: (
      input: { name: string; prompt: string; photoMediaId: string; audioMediaId?: string },
      opts?: CallOptions,
    ) => c.post("/api/avatar/from-selfie/enhance", JobCreated, input, opts),
    status: (jobId: string, opts?: CallOptions) =>
      c.get(path`/api/avatar/jobs/${jobId}/status`, PhotoAvatarStatus, opts),
  };
}
