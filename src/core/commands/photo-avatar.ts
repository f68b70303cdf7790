import { z } from "zod";
import { requestOf, serves } from "./declare.js";
import { defineCommand } from "./define.js";
import { audioFile, imageFile } from "./files.js";
import { flag, text } from "./options.js";
import { jobTitle } from "./titles.js";

/** Photo avatars: designed from a description (two variants to choose from) or made from a selfie. */

const avatarName = serves("name", text(100, "Name of the new avatar"));
const voice = audioFile("A voice sample the avatar will speak with (MP3, WAV, M4A)");
const trait = <const F extends string>(field: F, description: string) =>
  serves(field, text(100, description).optional());

/** The avatar's name, and the rest its design (the service's `design` object). */
const designOptions = z.object({
  name: avatarName,
  gender: trait("gender", "Gender, e.g. female, male"),
  age: trait("age", "Age, e.g. 30s, young adult"),
  ethnicity: trait("ethnicity", "Ethnicity or appearance"),
  outfit: trait("outfit", "Clothing, e.g. navy suit"),
  background: trait("background", "Background, e.g. office, plain white"),
  portrait: serves("isPortrait", flag("Head-and-shoulders portrait instead of a wider shot").optional()),
});

export const photoAvatarDesign = defineCommand({
  name: "photo_avatar.design",
  help: "Design a photo avatar from a description: pick one of two variants, or keep both",
  options: designOptions,
  main: "name",
  files: { voice },
  starts: "photo_avatar",
  async run({ options, media, upload }) {
    const [audioMediaId] = await upload("voice");
    const { name, ...design } = requestOf(designOptions, options);
    const { jobId } = await media.photoAvatars.createDesign({
      name,
      design,
      ...(audioMediaId && { audioMediaId }),
    });
    return {
      job: {
        kind: "photo_avatar",
        serviceJobId: jobId,
        title: jobTitle("photo_avatar", name),
        inputs: { name },
      },
    };
  },
});

const selfieOptions = z.object({
  name: avatarName,
  prompt: serves("prompt", text(2000, "How to change the photo (makes it an enhance job)").optional()),
});

export const photoAvatarSelfie = defineCommand({
  name: "photo_avatar.selfie",
  help: "Make a photo avatar from a selfie; with a prompt the photo is enhanced first",
  options: selfieOptions,
  main: "name",
  files: { photo: imageFile("A clear photo of one face (PNG, JPEG or WEBP)"), voice },
  starts: "photo_avatar",
  async run({ options, media, upload }) {
    const [photoMediaId] = await upload("photo");
    const [audioMediaId] = await upload("voice");
    const { prompt, ...made } = requestOf(selfieOptions, options);
    const input = { ...made, photoMediaId: photoMediaId!, ...(audioMediaId && { audioMediaId }) };
    const title = `Photo avatar: ${options.name}`;
    if (prompt) {
      const { jobId } = await media.photoAvatars.enhanceSelfie({ ...input, prompt });
      return { job: { kind: "photo_avatar", serviceJobId: jobId, title, inputs: { name: options.name } } };
    }
    // Without a prompt the avatar exists as soon as the call returns. It is a finished job all the
    // same, so that its id reaches the channel exactly once even when the first post fails.
    const { avatarId } = await media.photoAvatars.createFromSelfie(input);
    return {
      job: {
        kind: "photo_avatar",
        serviceJobId: avatarId,
        title,
        inputs: { name: options.name },
        finished: {
          state: "done",
          progress: 100,
          terminal: true,
          result: { kind: "photo_avatar", avatarIds: [avatarId] },
        },
      },
    };
  },
});
