/** The typed client of the media service: what the rest of the bot imports. */
export { createMediaClient, type MediaApi, type MediaClient, type MediaClientOptions } from "./client.js";
export type { CallOptions, Download } from "./http.js";
export type { JobKind, JobResult, JobState, NormalizedStatus } from "./job-status.js";
export type { FilePart } from "./multipart.js";
export {
  fetchStatus,
  normalizeImage,
  normalizeMockup,
  normalizePhotoAvatar,
  normalizeThumbnail,
  normalizeVideo,
  progressOf,
} from "./normalize.js";
export type { ImageAspectRatio, ImageCommon, ImageEditInput, ImageInpaintInput } from "./resources/images.js";
export type {
  AnimationStyle,
  AssetEditInput,
  AssetType,
  MockupGenerateInput,
  MockupVideoInput,
} from "./resources/mockups.js";
export type { AvatarDesign } from "./resources/photo-avatars.js";
export type { ThumbnailGenerateInput } from "./resources/thumbnails.js";
export type { CinematicCreateInput, VideoCreateInput } from "./resources/videos.js";
export type { RetryPolicy } from "./retry.js";
export type {
  Avatar,
  ImageInfo,
  ImageJob,
  Item,
  MockupGenerated,
  MockupItem,
  MockupStatus,
  PhotoAvatarStatus,
  ThumbnailJob,
  ThumbnailPage,
  Usage,
  Video,
  VideoMetadata,
  VideoStatus,
  Voice,
} from "./schemas.js";
