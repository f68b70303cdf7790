import { Readable } from "node:stream";
import { newId } from "./ids.js";
import { mp4Stream, SMALL_VIDEO_BYTES } from "./mp4.js";
import { colourFor, solidPng } from "./png.js";
import { Registry } from "./registry.js";
import type { MediaInfo } from "./types.js";

/**
 * Uploads carry no bytes (the presigned PUT is counted and hashed, never kept); generated results
 * know how to produce theirs on demand, so a served image or video never sits in memory.
 */
export type MediaContent = { type: "upload" } | { type: "png" } | { type: "mp4"; bytes: number };

export interface MediaRecord {
  id: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  content: MediaContent;
  receivedBytes: number;
  sha256?: string;
  /** A complete presigned PUT arrived (finalize needs it). */
  uploaded: boolean;
  finalized: boolean;
}

export type MediaKind = "image" | "audio" | "video";

export type Usable = { ok: true; record: MediaRecord } | { ok: false; why: "missing" | "wrong_type" };

export class MediaStore {
  private readonly records = new Registry<MediaRecord>();

  initialize(
    owner: string,
    declared: { fileName: string; contentType: string; fileSize: number },
  ): MediaRecord {
    return this.records.add(owner, {
      id: newId(),
      ...declared,
      content: { type: "upload" },
      receivedBytes: 0,
      uploaded: false,
      finalized: false,
    });
  }

  /** A finalized upload without the dance, for tests that only need a usable mediaId. */
  seed(owner: string, declared: { fileName: string; contentType: string; fileSize: number }): MediaRecord {
    const record = this.initialize(owner, declared);
    Object.assign(record, { uploaded: true, finalized: true, receivedBytes: declared.fileSize });
    return record;
  }

  /** A result of a job: usable (and listed) once `ready` says so. */
  generate(owner: string, fileName: string, content: MediaContent, ready?: () => boolean): MediaRecord {
    const png = content.type === "png";
    const record: MediaRecord = {
      id: newId(),
      fileName,
      contentType: png ? "image/png" : "video/mp4",
      fileSize: 0, // known when served: computing every result up front would cost CPU per job
      content,
      receivedBytes: 0,
      uploaded: true,
      finalized: true,
    };
    return this.records.add(owner, record, ready);
  }

  find(id: string): { owner: string; record: MediaRecord; ready: boolean } | undefined {
    const found = this.records.find(id);
    return found && { owner: found.owner, record: found.item, ready: found.ready };
  }

  /** A finalized, ready media of `owner` whose type fits `kind`. */
  usable(owner: string, id: string, kind: MediaKind): Usable {
    const record = this.records.get(owner, id);
    if (!record?.finalized) return { ok: false, why: "missing" };
    if (!record.contentType.startsWith(`${kind}/`)) return { ok: false, why: "wrong_type" };
    return { ok: true, record };
  }

  /** The bytes of a record as a stream with its length; uploads are previewed as a PNG. */
  body(record: MediaRecord): { size: number; contentType: string; stream: Readable } {
    if (record.content.type === "mp4")
      return { ...mp4Stream(record.content.bytes), contentType: "video/mp4" };
    const png = solidPng(colourFor(record.id));
    return { size: png.length, contentType: "image/png", stream: Readable.from([png]) };
  }

  info(id: string): MediaInfo | undefined {
    const found = this.find(id);
    if (!found) return undefined;
    const { record } = found;
    const generated = record.content.type !== "upload";
    return {
      mediaId: record.id,
      apiKey: found.owner,
      fileName: record.fileName,
      contentType: record.contentType,
      fileSize: generated ? this.body(record).size : record.fileSize,
      receivedBytes: record.receivedBytes,
      ...(record.sha256 ? { sha256: record.sha256 } : {}),
      finalized: record.finalized && found.ready,
      origin: generated ? "generated" : "upload",
    };
  }

  clear(): void {
    this.records.clear();
  }
}

export const videoContent = (large: boolean | undefined, largeBytes: number): MediaContent => ({
  type: "mp4",
  bytes: large ? largeBytes : SMALL_VIDEO_BYTES,
});

/** File names in links: safe characters only, so a link survives any client's URL handling. */
export const linkName = (fileName: string): string => fileName.replace(/[^\w.-]+/g, "_") || "file";
