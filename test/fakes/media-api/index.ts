import { createEmulator } from "./server.js";
import type { Emulator, EmulatorOptions } from "./types.js";

export type {
  AccountSeed,
  AccountState,
  Emulator,
  EmulatorOptions,
  Fault,
  JobPlan,
  MediaInfo,
  PlannedKind,
  QuotaLimit,
  QuotaType,
  RecordedCall,
  RecordedFile,
} from "./types.js";

/** Starts the Media API emulator on 127.0.0.1 and resolves once it listens. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return createEmulator(opts);
}
