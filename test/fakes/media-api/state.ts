import { Accounts, DEFAULT_ACCOUNTS } from "./accounts.js";
import { type Avatar, STOCK_AVATARS, STOCK_VOICES, type Voice } from "./catalog.js";
import { Faults } from "./faults.js";
import { type Job, Jobs, type JobTiming } from "./jobs.js";
import { linkName, MediaStore } from "./media.js";
import { Registry } from "./registry.js";
import { Signer } from "./signer.js";
import type { EmulatorOptions, RecordedCall } from "./types.js";

/** Options with their defaults applied. */
export interface Settings {
  voicesKey: "voices" | "avatars";
  thumbnailsListPath: string;
  thumbnailsPageSize: number;
  largeVideoBytes: number;
  uploadRequiresContentLength: boolean;
}

export interface Video {
  id: string;
  name: string;
  sourceAvatarId: string;
  createdAt: string;
  mediaId: string;
}

export interface Mockup {
  id: string;
  imageUrl: string;
  prompt: string;
  createdAt: string;
  mediaId: string;
  productMediaId: string;
  logoMediaIds: string[];
  layers: Record<string, unknown>[];
}

/** Asset items: the spec shows no fields, these are ours. */
export interface Asset {
  id: string;
  jobId: string;
  type: "logo" | "product";
  prompt: string;
  source: "generate" | "edit";
  mediaId: string;
  imageUrl: string;
  createdAt: string;
}

/** Mockup video items: the spec shows no fields, these are ours. */
export interface MockupVideo {
  id: string;
  jobId: string;
  mockupId: string;
  animationStyle: string;
  aspectRatio: "16:9" | "9:16";
  durationSeconds: 8;
  mediaId: string;
  videoUrl: string;
  createdAt: string;
}

/** Thumbnail items: the spec shows no fields, these are ours (imageUrl is a signed link). */
export interface Thumbnail {
  id: string;
  jobId: string;
  name: string;
  prompt: string;
  aspectRatio: "16:9" | "9:16";
  mediaId: string;
  createdAt: string;
}

export interface ImageInfo {
  id: string;
  name: string;
  prompt: string;
  createdAt: string;
  mediaId: string;
}

/** What a status endpoint needs beyond the clock, by job kind. */
export type JobDetail =
  | { kind: "video" | "cinematic"; videoId: string }
  | { kind: "image"; image: ImageInfo }
  | { kind: "photo_avatar"; flow: "enhance"; avatarId: string }
  | {
      kind: "photo_avatar";
      flow: "design";
      name: string;
      variantMediaIds: [string, string];
      audioMediaId?: string;
      confirmed?: { avatarIds: string[]; mediaIds: string[] };
    }
  | { kind: "mockup" | "mockup_asset" | "mockup_video"; mediaId: string }
  | { kind: "thumbnail"; thumbnail: Thumbnail };

export type JobOf<K extends JobDetail["kind"]> = Job<Extract<JobDetail, { kind: K }>>;

/** Everything the routes read and write; reset() empties it all but the accounts. */
export class State {
  readonly now: () => number;
  readonly settings: Settings;
  readonly accounts: Accounts;
  readonly jobs: Jobs<JobDetail>;
  readonly media = new MediaStore();
  readonly signer: Signer;
  readonly faults = new Faults();
  readonly calls: RecordedCall[] = [];
  readonly avatars = new Registry<Avatar>();
  readonly voices = new Registry<Voice>();
  readonly videos = new Registry<Video>();
  readonly mockups = new Registry<Mockup>();
  readonly assets = new Registry<Asset>();
  readonly mockupVideos = new Registry<MockupVideo>();
  readonly thumbnails = new Registry<Thumbnail>();
  /** Set once the server listens. */
  origin = "";

  constructor(opts: EmulatorOptions) {
    this.now = opts.now ?? Date.now;
    this.settings = {
      voicesKey: opts.voicesKey ?? "voices",
      thumbnailsListPath: opts.thumbnailsListPath ?? "/api/thumbnails",
      thumbnailsPageSize: opts.thumbnailsPageSize ?? 20,
      largeVideoBytes: opts.largeVideoBytes ?? 50 * 1024 * 1024,
      uploadRequiresContentLength: opts.uploadRequiresContentLength ?? true,
    };
    this.accounts = new Accounts(opts.accounts ?? DEFAULT_ACCOUNTS, this.now);
    this.jobs = new Jobs(this.now, opts.timeScale ?? 1);
    this.signer = new Signer(this.now, opts.signedUrlTtlMs ?? 60 * 60 * 1000);
  }

  /** An absolute, signed, key-less link to a media's bytes. */
  signedUrl(mediaId: string, fileName: string): string {
    return `${this.origin}${this.signer.sign(`/storage/files/${mediaId}/${linkName(fileName)}`)}`;
  }

  isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /** Ready predicate for results of `job`. */
  doneOf(job: JobTiming): () => boolean {
    return () => this.jobs.isDone(job);
  }

  allAvatars(owner: string): Avatar[] {
    return [...STOCK_AVATARS, ...this.avatars.list(owner)];
  }

  findAvatar(owner: string, id: string): Avatar | undefined {
    return STOCK_AVATARS.find((a) => a.id === id) ?? this.avatars.get(owner, id);
  }

  findVoice(owner: string, id: string): Voice | undefined {
    return STOCK_VOICES.find((v) => v.id === id) ?? this.voices.get(owner, id);
  }

  reset(): void {
    this.calls.length = 0;
    this.faults.clear();
    this.jobs.clear();
    this.media.clear();
    for (const registry of [
      this.avatars,
      this.voices,
      this.videos,
      this.mockups,
      this.assets,
      this.mockupVideos,
      this.thumbnails,
    ]) {
      registry.clear();
    }
    this.accounts.reset();
  }
}
