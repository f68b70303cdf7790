import { z } from "zod";
import type { JobRecord } from "../../store/jobs.js";
import type { Json } from "../base/ports.js";
import { commandByName } from "../commands/catalogue.js";
import { declaredOf, redrawn, redraws, requestOf } from "../commands/declare.js";
import type { AnyCommand, FormDef, JobRequest } from "../commands/define.js";
import { ActionError, InputError } from "../commands/errors.js";
import { audioFile, imageFile } from "../commands/files.js";
import { imageOptions, startImage } from "../commands/image.js";
import { madeWith } from "../commands/made-with.js";
import { animationOptions, generateMockup, mockupGenerate, startMockupVideo } from "../commands/mockup.js";
import { id, text, titleFrom } from "../commands/options.js";
import {
  avatarVideoRequest,
  type SpokenVideoRequest,
  startCinematic,
  startScriptedVideo,
  startSpokenVideo,
  videoCinematic,
  voiceOrOwn,
} from "../commands/video.js";
import { msg } from "../i18n/msg.js";
import { openAll, uploadAll } from "../media/uploads.js";
import { filledOf, inReadingOrder } from "../render/recipe.js";
import { tenantKey } from "../tenancy/tenancy.js";
import { defineAction } from "./define.js";

/**
 * What a result leads to: new jobs started from it, by whoever clicks (their job limit, their
 * name on the new job). The result's own ids go to the service (the image's media id, the
 * avatar's id), so nothing is downloaded or uploaded again.
 */

/** Long enough to swallow a double click, short enough to allow a deliberate second try. */
const REPEAT_CLAIM_MS = 10_000;

const record = (value: Json): Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};

/** The service's media id of an image result (images, thumbnails, mockups and assets keep one). */
export function resultMediaId(job: Pick<JobRecord, "result">): string | undefined {
  const mediaId = record(job.result).mediaId;
  return typeof mediaId === "string" && mediaId !== "" ? mediaId : undefined;
}

/** The creation request a job kept, for the follow-ups that repeat it. */
function keptRequest(job: Pick<JobRecord, "inputs">): JobRequest | undefined {
  const request = record(job.inputs).request;
  return request === undefined ? undefined : record(request);
}

const isImage = (job: JobRecord) =>
  (job.kind === "image" || job.kind === "thumbnail") && resultMediaId(job) !== undefined;

function mediaIdOf(job: JobRecord): string {
  const mediaId = resultMediaId(job);
  if (!mediaId) throw new ActionError("action.invalid", msg("refusal.action.no_image"));
  return mediaId;
}

const editOptions = z.object({ prompt: text(2000, "How the image should change") });

/** The form of Edit, on a result or on an image from the chat. */
export const editForm: FormDef<typeof editOptions> = {
  name: "image.edit",
  help: "Edit this image following a prompt",
  options: editOptions,
  main: "prompt",
  starts: "image",
};

const animateOptions = videoCinematic.options.pick({
  prompt: true,
  duration: true,
  aspect_ratio: true,
  resolution: true,
});

/** The form of Animate, on a result or on an image from the chat. */
export const animateForm: FormDef<typeof animateOptions> = {
  name: "video.cinematic",
  help: "A cinematic clip that starts from this image",
  options: animateOptions,
  main: "prompt",
  starts: "video",
};

export const edit = defineAction({
  name: "edit",
  who: "anyone",
  button: { label: msg("action.edit") },
  form: { title: "Edit image", of: () => editForm },
  appliesTo: isImage,
  run: (ctx) => {
    const referenceImageMediaId = mediaIdOf(ctx.job);
    // The settings the form does not ask come from the clicker's preset-free layers (defaults).
    const request = { ...requestOf(imageOptions, ctx.fields), referenceImageMediaId };
    return ctx.start("image.edit", (media) => startImage(media, "image.edit", request));
  },
});

export const animateImage = defineAction({
  name: "animate_image",
  who: "anyone",
  button: { label: msg("action.animate") },
  form: { title: "Animate image", of: () => animateForm },
  appliesTo: isImage,
  run: (ctx) => {
    const request = {
      ...requestOf(videoCinematic.options, ctx.fields),
      firstFrameImageMediaId: mediaIdOf(ctx.job),
    };
    return ctx.start("video.cinematic", (media) => startCinematic(media, request));
  },
});

/** What Remix asks again: what its result's recipe showed (all but the name), in the same order. */
const remixed = (command: AnyCommand) => inReadingOrder(madeWith(command));

export const remix = defineAction({
  name: "remix",
  who: "anyone",
  button: { label: msg("action.remix") },
  form: {
    title: "Remix",
    of: (job) => {
      const command = commandByName(job.command)!;
      return {
        name: command.name,
        help: "The same again, with what you change here",
        options: command.options.pick(
          Object.fromEntries(remixed(command).map(({ option }) => [option, true])),
        ),
        main: command.main,
        starts: command.starts,
      };
    },
    initial: (job) => {
      const request = keptRequest(job) ?? {};
      return Object.fromEntries(
        remixed(commandByName(job.command)!).flatMap(({ option, field }) => {
          const value = request[field];
          return typeof value === "string" || typeof value === "number" ? [[option, String(value)]] : [];
        }),
      );
    },
  },
  appliesTo: (job) => {
    const command = commandByName(job.command);
    return (
      isImage(job) && command !== undefined && redraws(command.options) && keptRequest(job) !== undefined
    );
  },
  run: (ctx) => {
    const command = commandByName(ctx.job.command)!;
    // Settings left empty are dropped, not kept from the original: the form showed them all.
    const declared = new Set(declaredOf(command.options).map(({ field }) => field));
    const kept = Object.entries(keptRequest(ctx.job) ?? {}).filter(([field]) => !declared.has(field));
    const request: JobRequest = { ...Object.fromEntries(kept), ...requestOf(command.options, ctx.fields) };
    return ctx.start(command.name, (media) => command.again!(media, request));
  },
});

export const regenerate = defineAction({
  name: "regenerate",
  who: "anyone",
  button: { label: msg("action.regenerate") },
  claim: {
    key: (job, event) => `regenerate:${job.id}:${event.actor.userId}`,
    ttlMs: REPEAT_CLAIM_MS,
    refusal: "Already regenerating: the new result appears in a new message.",
  },
  appliesTo: (job) =>
    job.state === "done" && commandByName(job.command)?.again !== undefined && keptRequest(job) !== undefined,
  run: (ctx) => {
    const command = commandByName(ctx.job.command)!;
    const request = redrawn(command.options, keptRequest(ctx.job)!);
    return ctx.start(command.name, (media) => command.again!(media, request), filledOf(ctx.job.inputs));
  },
});

/** What an avatar video made from an audio file kept: everything but the audio. */
function spokenRequestOf(job: Pick<JobRecord, "inputs">): SpokenVideoRequest | undefined {
  const spoken = record(record(job.inputs).spoken ?? null);
  if (typeof spoken.avatarId !== "string" || typeof spoken.name !== "string") return undefined;
  return {
    avatarId: spoken.avatarId,
    name: spoken.name,
    ...(typeof spoken.im2vid_full === "boolean" && { im2vid_full: spoken.im2vid_full }),
  };
}

/**
 * Regenerate of an avatar video made from an audio file: the same avatar, name and body setting,
 * with the audio given again, since the service cannot take the first one back. The form says
 * so, rather than a button that would fail.
 */
export const regenerateSpoken = defineAction({
  name: "regenerate_spoken",
  who: "anyone",
  button: { label: msg("action.regenerate") },
  form: {
    title: "Regenerate",
    of: () => ({
      name: "video.avatar",
      help: "The same avatar video again. The media service keeps no copy of the audio a video was made from, so attach the audio file again (the same one, or another).",
      options: z.object({}),
      files: {
        audio: audioFile("The service keeps no copy of this video's audio: attach it again", {
          required: true,
        }),
      },
      starts: "video",
    }),
  },
  appliesTo: (job) => job.state === "done" && spokenRequestOf(job) !== undefined,
  run: (ctx) => {
    const request = spokenRequestOf(ctx.job)!;
    return ctx.start("video.avatar", async (media) => {
      const [speechFile] = await openAll(ctx.attachments.audio ?? []);
      return startSpokenVideo(media, request, speechFile!);
    });
  },
});

function avatarIdsOf(job: Pick<JobRecord, "result">): string[] {
  const ids = record(job.result).avatarIds;
  return Array.isArray(ids) ? ids.filter((i): i is string => typeof i === "string") : [];
}

const scriptOptions = z.object({
  script: text(5000, "What the avatar says"),
  voice: id("Voice of the script (default: the avatar's own voice)").optional(),
});

export const avatarVideo = defineAction({
  name: "avatar_video",
  who: "anyone",
  value: z.string().regex(/^[1-9]$/),
  button: {
    label: msg("action.make_video"),
    style: "primary",
    values: (job) => {
      const ids = avatarIdsOf(job);
      return ids.map((_, i) => ({
        label: ids.length === 1 ? msg("action.make_video") : msg("action.make_video_with", { n: i + 1 }),
        value: String(i + 1),
      }));
    },
  },
  form: {
    title: "Make a video",
    of: (): FormDef<typeof scriptOptions> => ({
      name: "video.avatar",
      help: "A video of this avatar saying your script",
      options: scriptOptions,
      main: "script",
      picks: { voice: "voices" },
      starts: "video",
    }),
    initial: async (job, { value, lookup }): Promise<Record<string, string>> => {
      const avatarId = avatarIdsOf(job)[Number(value ?? "1") - 1];
      const voiceId = avatarId === undefined ? undefined : (await lookup("avatars", avatarId))?.voiceId;
      return voiceId ? { voice: voiceId } : {};
    },
  },
  appliesTo: (job) => job.command.startsWith("photo_avatar.") && avatarIdsOf(job).length > 0,
  run: async (ctx) => {
    const { core, job, event, fields } = ctx;
    const avatarId = avatarIdsOf(job)[Number(event.value ?? "1") - 1];
    if (!avatarId) throw new ActionError("action.invalid", msg("refusal.action.no_avatar"));
    await ctx.start("video.avatar", async (media) => {
      const tenant = tenantKey(job.tenant);
      const chosen =
        fields.voice === undefined ? undefined : await core.cache.find(tenant, "voices", media, fields.voice);
      if (fields.voice !== undefined && !chosen) {
        throw new InputError(
          "input.unknown_pick",
          msg("refusal.input.unknown_voice", { voice: fields.voice }),
        );
      }
      const avatar = await core.cache.find(tenant, "avatars", media, avatarId);
      const voice = voiceOrOwn(chosen?.id, avatar);
      const name = titleFrom(fields.script);
      return startScriptedVideo(media, avatarVideoRequest({ ...fields, avatar: avatarId, name, voice }));
    });
  },
});

function mockupIdOf(job: Pick<JobRecord, "inputs">): string | undefined {
  const mockupId = record(job.inputs).mockupId;
  return typeof mockupId === "string" ? mockupId : undefined;
}

export const animateMockup = defineAction({
  name: "animate_mockup",
  who: "anyone",
  button: { label: msg("action.animate") },
  form: {
    title: "Animate mockup",
    of: (): FormDef<typeof animationOptions> => ({
      name: "mockup.video",
      help: "An 8-second video of this mockup",
      options: animationOptions,
      main: "prompt",
      starts: "mockup",
    }),
  },
  appliesTo: (job) => job.command === "mockup.generate" && mockupIdOf(job) !== undefined,
  run: (ctx) => {
    const request = { mockupId: mockupIdOf(ctx.job)!, ...requestOf(animationOptions, ctx.fields) };
    return ctx.start("mockup.video", (media) => startMockupVideo(media, request));
  },
});

const assetTypeOf = (job: Pick<JobRecord, "inputs">) => record(job.inputs).assetType;

const instructionOptions = z.object({
  instruction: text(2000, "How the mockup should look, e.g. on a marble table, soft light"),
});

/** A product asset is the mockup's product; a logo asset goes on a product photo given in the form. */
const MOCKUP_FORMS: Record<string, FormDef<typeof instructionOptions>> = {
  product: {
    name: "mockup.generate",
    help: "A mockup with this image as the product",
    options: instructionOptions,
    main: "instruction",
    starts: "mockup",
  },
  logo: {
    name: "mockup.generate",
    help: "A mockup with this logo on the product photo you attach",
    options: instructionOptions,
    main: "instruction",
    files: { product: imageFile("Photo of the product the logo goes on (PNG, JPEG or WEBP)") },
    starts: "mockup",
  },
};

export const useInMockup = defineAction({
  name: "use_in_mockup",
  who: "anyone",
  button: { label: msg("action.use_in_mockup") },
  form: { title: "Use in a mockup", of: (job) => MOCKUP_FORMS[String(assetTypeOf(job))]! },
  appliesTo: (job) =>
    (job.command === "mockup.asset" || job.command === "mockup.asset_edit") &&
    Object.hasOwn(MOCKUP_FORMS, String(assetTypeOf(job))) &&
    resultMediaId(job) !== undefined,
  run: (ctx) => {
    const asked = requestOf(mockupGenerate.options, ctx.fields);
    const assetMediaId = mediaIdOf(ctx.job);
    const asLogo = assetTypeOf(ctx.job) === "logo";
    return ctx.start("mockup.generate", async (media) => {
      if (!asLogo) return generateMockup(media, { ...asked, productMediaId: assetMediaId, logoMediaIds: [] });
      const [productMediaId] = await uploadAll(media, ctx.attachments.product ?? []);
      return generateMockup(media, {
        ...asked,
        productMediaId: productMediaId!,
        logoMediaIds: [assetMediaId],
      });
    });
  },
});
