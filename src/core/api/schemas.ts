import { z } from "zod";

/**
 * The service's answers. Objects are loose (unknown fields pass through), fields the spec leaves
 * open are optional, and `null` reads as absent. What would break the bot is required: a creation
 * success without a jobId is an InvalidResponseError, not a job tracked under `undefined`.
 */

const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();

const id = z.string().min(1);
/** Stock voice ids can be short numbers ("1"); a number where a string id is due reads as that string. */
const looseId = z.union([id, z.number().transform(String)]);
const text = z.string();
const record = z.record(z.string(), z.unknown());

// ---- usage ---------------------------------------------------------------------------------------

export const Quota = z.looseObject({
  used: optional(z.number()),
  limit: optional(z.union([z.number(), z.string()])), // an integer or "unlimited"
});

export const Usage = z.looseObject({
  plan: optional(text),
  credits_used: optional(z.number()),
  credits_limit: optional(z.number()),
  credits_remaining: optional(z.number()),
  usage: optional(z.record(z.string(), Quota)),
  usage_reset_date: optional(text),
});
export type Usage = z.infer<typeof Usage>;

/**
 * Creation answers: the job id is what the bot needs; the usage figures are a bonus and a
 * malformed one must not turn a paid, started job into an error.
 */
const withUsage = { usage: Usage.optional().catch(undefined) };

export const JobCreated = z.looseObject({ jobId: id, ...withUsage });
export type JobCreated = z.infer<typeof JobCreated>;

// ---- media upload --------------------------------------------------------------------------------

export const MediaInitialized = z.looseObject({ mediaId: id, uploadUrl: z.string().min(1) });
export type MediaInitialized = z.infer<typeof MediaInitialized>;

export const MediaFinalized = z.looseObject({ success: optional(z.boolean()) });

// ---- avatars, voices, videos ---------------------------------------------------------------------

export const Avatar = z.looseObject({
  id: looseId,
  name: optional(text),
  createdAt: optional(text),
  voiceId: optional(looseId),
  isPhoto: optional(z.boolean()),
});
export type Avatar = z.infer<typeof Avatar>;
export const AvatarList = z.looseObject({ avatars: z.array(Avatar) });

export const Voice = z.looseObject({ id: looseId, name: optional(text), createdAt: optional(text) });
export type Voice = z.infer<typeof Voice>;
/** The spec declares the wrapper key `voices` and shows `avatars` in its sample: either is read. */
export const VoiceList = z
  .looseObject({ voices: optional(z.array(Voice)), avatars: optional(z.array(Voice)) })
  .refine((list) => list.voices !== undefined || list.avatars !== undefined, {
    message: "neither `voices` nor `avatars` holds the list",
  })
  .transform((list) => list.voices ?? list.avatars ?? []);

export const Video = z.looseObject({
  id: looseId,
  name: optional(text),
  sourceAvatarId: optional(text),
  createdAt: optional(text),
});
export type Video = z.infer<typeof Video>;
export const VideoList = z.looseObject({ videos: z.array(Video) });

export const VideoMetadata = Video.extend({ downloadUrl: z.string().min(1) });
export type VideoMetadata = z.infer<typeof VideoMetadata>;

// ---- job status records --------------------------------------------------------------------------

/** "45%", "45" or 45: normalize.ts turns it into a number. */
const progress = optional(z.union([z.number(), text]));

export const VideoStatus = z.looseObject({
  status: text,
  terminal: optional(z.boolean()),
  progress,
  reason: optional(text),
  backendStatus: optional(text),
  videoId: optional(looseId),
});
export type VideoStatus = z.infer<typeof VideoStatus>;

export const PhotoAvatarStatus = z.looseObject({
  status: text,
  terminal: optional(z.boolean()),
  progress,
  reason: optional(text),
  backendStatus: optional(text),
  variantPreviewUrls: optional(z.array(text)),
  avatarId: optional(looseId),
  avatarIds: optional(z.array(looseId)),
});
export type PhotoAvatarStatus = z.infer<typeof PhotoAvatarStatus>;

/** GET /api/image/{jobId} once complete. */
export const ImageInfo = z.looseObject({
  id: looseId,
  name: optional(text),
  prompt: optional(text),
  createdAt: optional(text),
  downloadUrl: z.string().min(1),
  mediaId: id,
});
export type ImageInfo = z.infer<typeof ImageInfo>;

/** GET /api/image/{jobId} while running or failed. */
export const ImagePending = z.looseObject({
  status: text,
  progress,
  terminal: optional(z.boolean()),
  reason: optional(text),
});

/** Image info first: a finished record may carry a `status` too, and the image is what counts. */
export const ImageJob = z.union([
  ImageInfo.transform((info) => ({ form: "image" as const, ...info })),
  ImagePending.transform((pending) => ({ form: "pending" as const, ...pending })),
]);
export type ImageJob = z.infer<typeof ImageJob>;

export const MockupStatus = z.looseObject({
  status: text,
  progress,
  terminal: optional(z.boolean()),
  imageUrl: optional(text),
  mediaId: optional(text),
  reason: optional(text),
});
export type MockupStatus = z.infer<typeof MockupStatus>;

/** `{status, progress}` while generating; the thumbnail's details, whose shape is not specified, once done. */
export const ThumbnailJob = z.looseObject({ status: optional(text), progress, reason: optional(text) });
export type ThumbnailJob = z.infer<typeof ThumbnailJob>;

// ---- photo avatars -------------------------------------------------------------------------------

export const DesignConfirmed = z.looseObject({ avatarId: looseId, mediaId: optional(text) });
export type DesignConfirmed = z.infer<typeof DesignConfirmed>;

export const DesignBothConfirmed = z.looseObject({
  avatarIds: z.array(looseId).min(1),
  mediaIds: optional(z.array(text)),
});
export type DesignBothConfirmed = z.infer<typeof DesignBothConfirmed>;

export const SelfieAvatarCreated = z.looseObject({ avatarId: looseId });
export type SelfieAvatarCreated = z.infer<typeof SelfieAvatarCreated>;

// ---- mockups -------------------------------------------------------------------------------------

/** Synchronous: the image is the result; the jobId is only an echo. */
export const MockupGenerated = z.looseObject({
  jobId: optional(text),
  imageUrl: z.string().min(1),
  mediaId: id,
  ...withUsage,
});
export type MockupGenerated = z.infer<typeof MockupGenerated>;

export const MockupItem = z.looseObject({
  id: looseId,
  imageUrl: optional(text),
  prompt: optional(text),
  createdAt: optional(text),
});
export type MockupItem = z.infer<typeof MockupItem>;
export const MockupList = z.looseObject({ mockups: z.array(MockupItem) });

/** Asset, mockup video and thumbnail items: fields not specified. */
export type Item = z.infer<typeof record>;
export const AssetList = z.looseObject({ assets: z.array(record) });
export const MockupVideoList = z.looseObject({ videos: z.array(record) });

// ---- thumbnails ----------------------------------------------------------------------------------

export const ThumbnailPage = z.looseObject({
  thumbnails: z.array(record),
  page: optional(z.number()),
  totalPages: optional(z.number()),
  totalCount: optional(z.number()),
});
export type ThumbnailPage = z.infer<typeof ThumbnailPage>;
