import type { FileSpec } from "./define.js";

const MiB = 1024 * 1024;

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export const AUDIO_TYPES = [
  "audio/mpeg",
  "audio/wav",
  "audio/x-wav",
  "audio/mp4",
  "audio/x-m4a",
  "audio/aac",
  "audio/ogg",
  "audio/webm",
] as const;

/** Slack's file inputs take 10 MB per file; images bigger than that are not useful here anyway. */
export const IMAGE_MAX_BYTES = 10 * MiB;
export const AUDIO_MAX_BYTES = 25 * MiB;

export function imageFile(description: string, extra: Partial<FileSpec> = {}): FileSpec {
  return { description, types: IMAGE_TYPES, maxBytes: IMAGE_MAX_BYTES, required: true, max: 1, ...extra };
}

export function audioFile(description: string, extra: Partial<FileSpec> = {}): FileSpec {
  return { description, types: AUDIO_TYPES, maxBytes: AUDIO_MAX_BYTES, required: false, max: 1, ...extra };
}

/**
 * Chat platforms sometimes leave the type out or send a generic one (an upload from a phone):
 * then the file name's extension decides.
 */
const BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  m4a: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  weba: "audio/webm",
};

/** "Image/PNG; charset=binary" -> "image/png"; a missing or generic type comes from the extension. */
export function effectiveType(name: string, contentType: string | undefined): string {
  const declared = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (declared !== "" && declared !== "application/octet-stream" && declared !== "binary/octet-stream") {
    return declared;
  }
  const extension = name.toLowerCase().split(".").pop() ?? "";
  return BY_EXTENSION[extension] ?? declared;
}

/** "image/png" -> "PNG": how people name file types. */
export function typeLabel(types: readonly string[]): string {
  const names = types.map((t) => (t.split("/")[1] ?? t).replace(/^x-/, "").toUpperCase());
  return [...new Set(names)].join(", ");
}
