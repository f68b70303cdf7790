import type { Dispatcher } from "undici";
import { createLogger, type Logger } from "../base/log.js";
import { addSecret } from "../base/redact.js";
import { createTransport } from "./http.js";
import { bindKey, type UsageListener } from "./resources/caller.js";
import { images } from "./resources/images.js";
import { media } from "./resources/media.js";
import { mockups } from "./resources/mockups.js";
import { photoAvatars } from "./resources/photo-avatars.js";
import { thumbnails } from "./resources/thumbnails.js";
import { usage } from "./resources/usage.js";
import { avatars, videos, voices } from "./resources/videos.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";

export interface MediaClientOptions {
  /** The service's origin; a value ending in /api or /api/ is accepted too. */
  baseUrl: string;
  /** Per call; for streamed uploads and downloads it is the longest silence allowed. Default 30 s. */
  timeoutMs?: number;
  /** How GETs are retried (creation and confirm calls never are). */
  retries?: Partial<RetryPolicy>;
  /** The spec does not show the path of the thumbnail list. Default /api/thumbnails. */
  thumbnailsListPath?: string;
  logger?: Logger;
  dispatcher?: Dispatcher;
}

/** Everything the service offers, for one tenant's API key. */
export type MediaApi = ReturnType<MediaClient["as"]>;

export interface MediaClient {
  readonly baseUrl: string;
  /**
   * The resource groups, calling with this key. Keys belong to tenants (a Discord server, a Slack
   * workspace), so each call names one; a missing key fails every call with UnauthorizedError.
   */
  as(apiKey: string | undefined): {
    usage: ReturnType<typeof usage>;
    media: ReturnType<typeof media>;
    avatars: ReturnType<typeof avatars>;
    voices: ReturnType<typeof voices>;
    videos: ReturnType<typeof videos>;
    photoAvatars: ReturnType<typeof photoAvatars>;
    images: ReturnType<typeof images>;
    mockups: ReturnType<typeof mockups>;
    thumbnails: ReturnType<typeof thumbnails>;
  };
  /**
   * `listener` hears the usage figures of every creation answer that has them, whichever key made
   * the call: how the bot attributes each charge without every command passing them on.
   */
  onUsage(listener: UsageListener): void;
  close(): Promise<void>;
}

export function createMediaClient(options: MediaClientOptions): MediaClient {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? 30_000,
    retries: { ...DEFAULT_RETRY_POLICY, ...options.retries },
    logger: (options.logger ?? createLogger({ level: "silent" })).child({ component: "media-api" }),
    dispatcher: options.dispatcher,
  });
  const thumbnailsListPath = options.thumbnailsListPath ?? "/api/thumbnails";
  const listeners: UsageListener[] = [];
  const tell: UsageListener = (usage) => {
    // A listener's fault must never turn a paid, started job into an error.
    for (const listener of listeners) {
      try {
        listener(usage);
      } catch {}
    }
  };

  return {
    baseUrl: transport.baseUrl,
    as(apiKey) {
      // Every key the bot calls with (the operator's, a tenant's decrypted one, one being set up)
      // is from now on redacted from every log line.
      addSecret(apiKey);
      const c = bindKey(transport, apiKey, tell);
      return {
        usage: usage(c),
        media: media(c),
        avatars: avatars(c),
        voices: voices(c),
        videos: videos(c),
        photoAvatars: photoAvatars(c),
        images: images(c),
        mockups: mockups(c),
        thumbnails: thumbnails(c, thumbnailsListPath),
      };
    },
    onUsage: (listener) => {
      listeners.push(listener);
    },
    close: () => transport.close(),
  };
}
