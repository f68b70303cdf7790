import { z } from "zod";
import type { MediaApi } from "../api/client.js";
import type { FilePart } from "../api/multipart.js";
import { CinematicCreateInput, ScriptedVideoInput } from "../api/resources/videos.js";
import { readerLocale } from "../i18n/locale.js";
import { msg } from "../i18n/msg.js";
import { translatorFor } from "../i18n/translator.js";
import type { PickItem } from "../media/catalog-cache.js";
import { videoMedia } from "../media/files.js";
import { resultCard } from "../render/job.js";
import { jobName, requestOf, serves } from "./declare.js";
import { defineCommand, type StartedJob } from "./define.js";
import { InputError } from "./errors.js";
import { audioFile, imageFile } from "./files.js";
import { flag, id, RESOLUTIONS, text, titleFrom, wholeNumber } from "./options.js";
import { jobTitle } from "./titles.js";

/** Avatar and cinematic videos, and fetching a finished one. */

/** A script read by a voice: what Regenerate and Make a video repeat (an audio file is not kept). */
export interface ScriptedVideoRequest {
  avatarId: string;
  name: string;
  voiceId: string;
  text: string;
  im2vid_full?: boolean;
}

export async function startScriptedVideo(
  media: MediaApi,
  request: ScriptedVideoRequest,
): Promise<StartedJob> {
  const { jobId } = await media.videos.create(request);
  return {
    kind: "video",
    serviceJobId: jobId,
    title: jobTitle("avatar_video", request.name),
    inputs: { name: request.name, request: { ...request } },
  };
}

/**
 * An avatar lip-syncing an audio file. The service keeps no copy of the audio it can be given
 * again (video/create takes it only as a multipart file), so what is kept for Regenerate is the
 * rest: the file is asked for again.
 */
export interface SpokenVideoRequest {
  avatarId: string;
  name: string;
  im2vid_full?: boolean;
}

export async function startSpokenVideo(
  media: MediaApi,
  request: SpokenVideoRequest,
  speechFile: FilePart,
): Promise<StartedJob> {
  const { jobId } = await media.videos.create({ ...request, speechFile });
  return {
    kind: "video",
    serviceJobId: jobId,
    title: jobTitle("avatar_video", request.name),
    inputs: { name: request.name, spoken: { ...request } },
  };
}

/** The avatar's own voice when none was chosen; some avatars have none. */
export function voiceOrOwn(voice: string | undefined, avatar: PickItem | undefined): string {
  const voiceId = voice ?? avatar?.voiceId;
  if (!voiceId) throw new InputError("input.no_voice", msg("refusal.input.no_voice"));
  return voiceId;
}

const avatarOptions = z.object({
  // Optional so that a default avatar can fill it; run refuses a video with none.
  avatar: serves(
    "avatarId",
    id("The avatar that speaks (pick from the list; default: your default avatar)").optional(),
  ),
  script: serves("text", text(5000, "What the avatar says (or attach audio instead)").optional()),
  voice: serves("voiceId", id("Voice of the script (default: the avatar's own voice)").optional()),
  name: jobName("Name of the video (default: the first words of the script)"),
  full_body: serves("im2vid_full", flag("Animate the whole body (photo avatars)").optional(), {
    show: (value) => (value ? "yes" : "no"),
  }),
});

/** The request of an avatar video from its options (its avatar, name and voice settled). */
export function avatarVideoRequest<
  V extends z.output<typeof avatarOptions> & { avatar: string; name: string },
>(values: V) {
  return requestOf(avatarOptions, values);
}

export const videoAvatar = defineCommand({
  name: "video.avatar",
  help: "Make a talking-avatar video from a script or an audio file",
  options: avatarOptions,
  main: "script",
  files: { audio: audioFile("Speech the avatar lip-syncs to, instead of a script (MP3, WAV, M4A)") },
  picks: { avatar: "avatars", voice: "voices" },
  starts: "video",
  async run({ options, media, attachments, open, lookup }) {
    const { avatar: avatarId, script } = options;
    if (!avatarId) {
      throw new InputError("input.no_avatar", msg("refusal.input.no_avatar", { avatar: "avatar" }));
    }
    const withAudio = (attachments.audio?.length ?? 0) > 0;
    if (withAudio === Boolean(script)) {
      throw new InputError(
        "input.script_or_audio",
        withAudio
          ? "Give a script or attach audio, not both."
          : "Give a script for the avatar to say, or attach audio.",
      );
    }
    const avatar = await lookup("avatars", avatarId);
    const name = options.name ?? (script ? titleFrom(script) : `${avatar?.name ?? "Avatar"} video`);
    if (script) {
      const voice = voiceOrOwn(options.voice, avatar);
      return {
        job: await startScriptedVideo(
          media,
          avatarVideoRequest({ ...options, avatar: avatarId, name, voice, script }),
        ),
      };
    }
    const [speechFile] = await open("audio");
    // The audio is the speech: a voice given with it has nothing to say.
    const spoken = avatarVideoRequest({ ...options, avatar: avatarId, name, voice: undefined });
    return { job: await startSpokenVideo(media, spoken, speechFile!) };
  },
  again: (media, request) => startScriptedVideo(media, ScriptedVideoInput.loose().parse(request)),
});

export async function startCinematic(media: MediaApi, request: CinematicCreateInput): Promise<StartedJob> {
  const { jobId } = await media.videos.createCinematic(request);
  return {
    kind: "video",
    serviceJobId: jobId,
    title: jobTitle("cinematic", request.name),
    inputs: { name: request.name, request: { ...request } },
  };
}

const cinematicOptions = z.object({
  prompt: serves("prompt", text(2000, "What happens in the clip")),
  name: jobName("Name of the video (default: the first words of the prompt)", "prompt"),
  aspect_ratio: serves(
    "aspectRatio",
    z.enum(["16:9", "9:16", "1:1"]).describe("Shape of the clip").optional(),
  ),
  duration: serves("durationSeconds", wholeNumber(1, 30, "Length in seconds (1-30)").optional(), {
    show: (seconds) => `${seconds} s`,
  }),
  resolution: serves("resolution", z.enum(RESOLUTIONS).describe("Resolution of the clip").optional()),
});

export const videoCinematic = defineCommand({
  name: "video.cinematic",
  help: "Make a cinematic clip from a prompt, optionally from a first frame",
  options: cinematicOptions,
  main: "prompt",
  files: {
    first_frame: imageFile("Image the clip starts from", { required: false }),
    references: imageFile("Reference images for style and subjects", { required: false, max: 4 }),
  },
  starts: "video",
  async run({ options, media, upload }) {
    const [firstFrame] = await upload("first_frame");
    const references = await upload("references");
    const job = await startCinematic(media, {
      ...requestOf(cinematicOptions, options),
      ...(firstFrame && { firstFrameImageMediaId: firstFrame }),
      ...(references.length > 0 && { referenceImageMediaIds: references }),
    });
    return { job };
  },
  again: (media, request) => startCinematic(media, CinematicCreateInput.loose().parse(request)),
});

export const videoGet = defineCommand({
  name: "video.get",
  help: "Post a finished video (or its link when it is too big to upload here)",
  options: z.object({ video_id: id("Id of the video (see video list)") }),
  main: "video_id",
  async run({ options, media, uploadLimit, actor }) {
    const { meta, media: file } = await videoMedia(media, options.video_id, uploadLimit);
    const locale = readerLocale(actor);
    const t = translatorFor(locale);
    const view = { id: meta.id, title: t.say(jobTitle("video", meta.name ?? meta.id)), locale };
    return { reply: { ...resultCard(view, file), footer: t.text("job.video_footer", { id: meta.id }) } };
  },
});
