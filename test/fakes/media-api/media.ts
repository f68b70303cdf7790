import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { newId } from "./ids.js";
import { mp4Stream } from "./mp4.js";
import { type AspectRatio, type PictureRecipe, renderPicture, type SourceImage } from "./pictures.js";
import { Registry } from "./registry.js";
import type { MediaInfo } from "./types.js";

/**
 * Image uploads up to this size are kept, so that an edit can be drawn over them and their view
 * shows them; larger ones, and other files, are counted and hashed only (a 50 MB PUT costs a few
 * chunks of memory).
 */
export const KEEP_IMAGE_BYTES = 8 * 1024 * 1024;

/** An image a picture is drawn over: another media, or a file sent along with the request. */
export type PictureSource = { mediaId: string } | (SourceImage & { sha256: string });

/**
 * What a media holds. Generated results know how to make their bytes (a picture drawn from its
 * recipe, a video clip of its aspect ratio), so they are made when served, not per job.
 */
export type MediaContent =
  | { type: "upload"; bytes?: Buffer }
  | { type: "picture"; recipe: PictureRecipe; sources: PictureSource[] }
  /** `bytes`: a video planned large is padded to that size. */
  | { type: "video"; aspectRatio: AspectRatio; bytes?: number };

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

/** Rendered pictures kept for their next download (a HEAD, then a GET, then a thumbnail...). */
const RENDERED_KEPT = 64;

export class MediaStore {
  private readonly records = new Registry<MediaRecord>();
  /** By what a picture is drawn from, so that the same prompt and sources are drawn once. */
  private readonly rendered = new Map<string, Buffer>();
  /**
   * The sha256 of each picture served, and whose it was: a client that downloads a result and
   * uploads it again (a message's "Edit image", a workflow step given a result's URL) sends it back.
   */
  private readonly served = new Map<string, string>();

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
    const record: MediaRecord = {
      id: newId(),
      fileName,
      contentType: content.type === "video" ? "video/mp4" : "image/png",
      fileSize: 0, // known when served: drawing every result up front would cost CPU per job
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

  /**
   * The bytes of a record as a stream with its length: a result as made, an image upload as sent
   * (or, when the emulator kept none of it, a picture saying so).
   */
  body(record: MediaRecord): { size: number; contentType: string; stream: Readable } {
    const { content } = record;
    if (content.type === "video")
      return { ...mp4Stream(content.aspectRatio, content.bytes), contentType: "video/mp4" };
    if (content.type === "upload" && content.bytes) {
      const { bytes } = content;
      return { size: bytes.length, contentType: record.contentType, stream: Readable.from([bytes]) };
    }
    const png = this.picture(record);
    return { size: png.length, contentType: "image/png", stream: Readable.from([png]) };
  }

  /** A picture's PNG, drawn once for as long as it is among the recently served. */
  private picture(record: MediaRecord, bare = false): Buffer {
    const key = this.keyOf(record, bare);
    const kept = this.rendered.get(key);
    if (kept) {
      this.rendered.delete(key);
      this.rendered.set(key, kept);
      return kept;
    }
    const { content } = record;
    const png =
      content.type === "picture"
        ? renderPicture(
            content.recipe,
            content.sources.flatMap((source) => this.source(source)),
            { bare },
          )
        : renderPicture({ kind: "upload", fileName: record.fileName });
    if (content.type === "picture" && !bare)
      this.served.set(createHash("sha256").update(png).digest("hex"), record.id);
    this.rendered.set(key, png);
    if (this.rendered.size > RENDERED_KEPT) this.rendered.delete(this.rendered.keys().next().value!);
    return png;
  }

  /** What a picture is drawn from: its recipe and its sources' own keys (or hashes). */
  private keyOf(record: MediaRecord, bare: boolean): string {
    const { content } = record;
    if (content.type !== "picture") return `upload:${record.fileName}`;
    const sources = content.sources.map((source) => {
      if (!("mediaId" in source)) return source.sha256;
      const found = this.find(source.mediaId)?.record;
      return found?.content.type === "upload"
        ? (found.sha256 ?? found.id)
        : found
          ? this.keyOf(found, true)
          : "";
    });
    return JSON.stringify([content.recipe, sources, bare]);
  }

  /**
   * A source as an image to draw over: an image upload's bytes, an emulator's picture without its
   * words (also when a client uploads it again); nothing for one the emulator kept no bytes of
   * (the picture shows a checkerboard).
   */
  private source(source: PictureSource): SourceImage[] {
    const sha256 = "mediaId" in source ? this.find(source.mediaId)?.record.sha256 : source.sha256;
    const original = sha256 === undefined ? undefined : this.served.get(sha256);
    if (original !== undefined) return this.source({ mediaId: original });
    if (!("mediaId" in source)) return [source];
    const record = this.find(source.mediaId)?.record;
    if (record?.content.type === "picture")
      return [{ bytes: this.picture(record, true), contentType: "image/png" }];
    if (record?.content.type === "upload" && record.content.bytes)
      return [{ bytes: record.content.bytes, contentType: record.contentType }];
    return [];
  }

  info(id: string): MediaInfo | undefined {
    const found = this.find(id);
    if (!found) return undefined;
    const { record } = found;
    const generated = record.content.type !== "upload";
    let fileSize = record.fileSize;
    if (generated) {
      const body = this.body(record);
      body.stream.destroy();
      fileSize = body.size;
    }
    return {
      mediaId: record.id,
      apiKey: found.owner,
      fileName: record.fileName,
      contentType: record.contentType,
      fileSize,
      receivedBytes: record.receivedBytes,
      ...(record.sha256 ? { sha256: record.sha256 } : {}),
      finalized: record.finalized && found.ready,
      origin: generated ? "generated" : "upload",
    };
  }

  clear(): void {
    this.records.clear();
    this.rendered.clear();
    this.served.clear();
  }
}

export const videoContent = (
  aspectRatio: AspectRatio,
  large: boolean | undefined,
  largeBytes: number,
): MediaContent => ({ type: "video", aspectRatio, ...(large && { bytes: largeBytes }) });

/** File names in links: safe characters only, so a link survives any client's URL handling. */
export const linkName = (fileName: string): string => fileName.replace(/[^\w.-]+/g, "_") || "file";
