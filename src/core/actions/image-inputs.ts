import { type Card, card } from "../base/cards.js";
import type { FormDef } from "../commands/define.js";
import { thumbnailGenerate } from "../commands/thumbnail.js";
import { english, type Translator } from "../i18n/translator.js";
import { animateForm, editForm } from "./follow-ups.js";

/**
 * An image already in the chat as the input of a command: Discord's message context-menu commands
 * (Apps > "Edit image") and Slack's message shortcuts. Each asks the form of its follow-up, then
 * runs `command` with the image as the file option `file`, through the command's normal upload;
 * an image of the bot's own result goes by its media id instead (the event's `results`).
 */
export interface ImageInput {
  /** The Slack shortcut's callback_id; fits the adapters' control ids. */
  name: string;
  /** What the menu shows: the Discord command's name (<= 32 characters) and the Slack shortcut's. */
  label: string;
  /** The form's title (<= 24 characters, Slack's limit). */
  title: string;
  /** The catalogue command the form runs. */
  command: string;
  /** Its file option that takes the image. */
  file: string;
  form: FormDef;
}

const thumbnailReferenceForm: FormDef = {
  name: "thumbnail.generate",
  help: "A video thumbnail that takes this image as its reference",
  options: thumbnailGenerate.options.pick({
    prompt: true,
    aspect_ratio: true,
    negative_prompt: true,
    seed: true,
  }),
  main: "prompt",
  starts: "thumbnail",
};

export const IMAGE_INPUTS: readonly ImageInput[] = [
  {
    name: "edit_image",
    label: "Edit image",
    title: "Edit image",
    command: "image.edit",
    file: "image",
    form: editForm,
  },
  {
    name: "animate_image",
    label: "Animate image",
    title: "Animate image",
    command: "video.cinematic",
    file: "first_frame",
    form: animateForm,
  },
  {
    name: "thumbnail_reference",
    label: "Use as thumbnail reference",
    title: "Thumbnail from image",
    command: "thumbnail.generate",
    file: "references",
    form: thumbnailReferenceForm,
  },
];

export function imageInputByName(name: string): ImageInput | undefined {
  return IMAGE_INPUTS.find((input) => input.name === name);
}

export function imageInputByLabel(label: string): ImageInput | undefined {
  return IMAGE_INPUTS.find((input) => input.label === label);
}

/**
 * The private answer to a menu used on a message that holds no image the bot can take, in its
 * reader's language (`t`); `name` is the menu's entry as the platform shows it to them.
 */
export function noImageNotice(input: ImageInput, t: Translator = english(), name = input.label): Card {
  return card(t.text("shortcut.no_image.title"), "warning", {
    lines: [t.text("shortcut.no_image.line", { name })],
    locale: t.locale,
  });
}
