import { commandByName } from "../core/commands/catalogue.js";
import { IMAGE_ASPECT_RATIOS, RESOLUTIONS, WIDE_OR_TALL } from "../core/commands/options.js";
import { type Msg, msg } from "../core/i18n/msg.js";

/**
 * The bot's Slack workflow steps (custom functions of a Bolt app): each one is a command of the
 * core's catalogue, its inputs the command's options and files, its outputs what the finished job
 * yields. `slack-manifest.json`'s `functions` are these definitions as Slack reads them
 * (`manifestFunctions`; a test keeps the two equal), and the listener (listeners/functions.ts)
 * translates an execution's inputs with them into the command's event.
 */

type ParameterType = "string" | "integer" | "boolean" | "slack#/types/file_id" | "slack#/types/user_context";

interface Parameter {
  type: ParameterType;
  title: string;
  description: string;
  /** Only for strings: the values Workflow Builder offers. */
  choices?: readonly string[];
  required?: true;
}

export interface StepDef {
  /** The function's callback_id in the manifest. */
  callbackId: string;
  /** The catalogue command the step runs. */
  command: string;
  title: string;
  description: string;
  /** Inputs that are the command's options, by option name. */
  options: Record<string, Parameter>;
  /** Inputs that are files (Slack file ids, from a form step or another step), by the command's file option. */
  files: Record<string, Parameter>;
  /** Offers FINISH_AT_START: for jobs that may outlive the step's 15 minutes (videos). */
  long?: true;
}

/** Who runs the workflow: Workflow Builder fills a user_context only with the person who started it. */
export const USER_INPUT = "user";

/**
 * A long job's step can end as soon as the job starts, with its id only, the result coming to the
 * person's DM when ready: a step's token lasts 15 minutes at most, a long avatar video may not.
 */
export const FINISH_AT_START = "finish_at_start";
const finishAtStart: Parameter = {
  type: "boolean",
  title: "Finish when started",
  description:
    "End this step as soon as the video is started, with its job id only; the video comes to the person's DM with the bot when ready (for videos that may take longer than Slack's 15 minutes)",
};

const prompt = (what: string): Parameter => ({
  type: "string",
  title: "Prompt",
  description: what,
  required: true,
});
const name: Parameter = {
  type: "string",
  title: "Name",
  description: "Name of the result (default: the first words of the text)",
};
const image = (description: string): Parameter => ({
  type: "slack#/types/file_id",
  title: "Image",
  description: `${description} (PNG, JPEG or WEBP): a file from a form step, or the File of another step of this app`,
});

/** Each file input has a twin taking a web address instead (another step's URL output, a public link). */
const LINK_SUFFIX = "_url";
const linkOf = (file: Parameter): Parameter => ({
  type: "string",
  title: `${file.title} URL`,
  description: "Or a link to it: the URL of another step of this app, or a public web address",
});

export const STEPS: readonly StepDef[] = [
  {
    callbackId: "generate_image",
    command: "image.generate",
    title: "Generate an image",
    description: "Generate an image from a prompt with the media service",
    options: {
      prompt: prompt("What the image should show"),
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description: "Shape of the image",
        choices: IMAGE_ASPECT_RATIOS,
      },
      negative_prompt: {
        type: "string",
        title: "Negative prompt",
        description: "What the image should not show",
      },
      seed: { type: "integer", title: "Seed", description: "Same seed, same image" },
      name,
    },
    files: {},
  },
  {
    callbackId: "edit_image",
    command: "image.edit",
    title: "Edit an image",
    description: "Edit an image following a prompt with the media service",
    options: {
      prompt: prompt("How the image should change"),
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description: "Shape of the image",
        choices: IMAGE_ASPECT_RATIOS,
      },
      name,
    },
    files: { image: image("The image to edit") },
  },
  {
    callbackId: "make_thumbnail",
    command: "thumbnail.generate",
    title: "Make a thumbnail",
    description: "Make a video thumbnail from a prompt, optionally from a reference image",
    options: {
      prompt: prompt("What the thumbnail should show"),
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description: "16:9 for videos, 9:16 for shorts",
        choices: WIDE_OR_TALL,
      },
      negative_prompt: {
        type: "string",
        title: "Negative prompt",
        description: "What the thumbnail should not show",
      },
      name,
    },
    files: { references: image("A reference image (a face, a product, a style)") },
  },
  {
    callbackId: "make_avatar_video",
    command: "video.avatar",
    title: "Make an avatar video",
    description: "A talking-avatar video of a script, with the media service",
    options: {
      avatar: {
        type: "string",
        title: "Avatar",
        description: "Id or name of the avatar that speaks",
        required: true,
      },
      script: { type: "string", title: "Script", description: "What the avatar says", required: true },
      voice: {
        type: "string",
        title: "Voice",
        description: "Id or name of the voice (default: the avatar's own)",
      },
      full_body: {
        type: "boolean",
        title: "Full body",
        description: "Animate the whole body (photo avatars)",
      },
      name,
    },
    files: {},
    long: true,
  },
  {
    callbackId: "make_cinematic_video",
    command: "video.cinematic",
    title: "Make a cinematic video",
    description: "A cinematic clip from a prompt, optionally starting from an image",
    options: {
      prompt: prompt("What happens in the clip"),
      aspect_ratio: {
        type: "string",
        title: "Aspect ratio",
        description: "Shape of the clip",
        choices: ["16:9", "9:16", "1:1"],
      },
      duration: { type: "integer", title: "Duration", description: "Length in seconds (1-30)" },
      resolution: {
        type: "string",
        title: "Resolution",
        description: "Resolution of the clip",
        choices: RESOLUTIONS,
      },
      name,
    },
    files: { first_frame: image("The image the clip starts from") },
    long: true,
  },
];

/** What every step yields, for the steps after it. */
export const STEP_OUTPUTS = {
  file: {
    type: "slack#/types/file_id",
    title: "File",
    description: "The result as a Slack file (left empty when it is over Slack's upload limit)",
  },
  url: { type: "string", title: "URL", description: "The result's download link at the media service" },
  media_id: {
    type: "string",
    title: "Media id",
    description: "The result's id at the media service (a video's id for videos)",
  },
  job_id: { type: "string", title: "Job id", description: "The bot's job id, as /media jobs shows it" },
} as const satisfies Record<string, Omit<Parameter, "required">>;

const userParameter: Parameter = {
  type: "slack#/types/user_context",
  title: "Person",
  description: "Who runs the workflow: their access, budget and rates apply",
  required: true,
};

function manifestParameters(parameters: Record<string, Parameter>, required: readonly string[] = []) {
  const properties = Object.fromEntries(
    Object.entries(parameters).map(([key, { required: _required, choices, ...rest }]) => [
      key,
      { ...rest, ...(choices && { enum: [...choices] }) },
    ]),
  );
  const needed = [...required, ...Object.keys(parameters).filter((key) => parameters[key]?.required)];
  return { properties, required: needed };
}

/** A step's inputs besides its person, by name, as Workflow Builder shows them. */
export function stepInputs(step: StepDef): Record<string, Parameter> {
  const links = Object.entries(step.files).map(([key, file]) => [`${key}${LINK_SUFFIX}`, linkOf(file)]);
  return {
    ...step.options,
    ...step.files,
    ...Object.fromEntries(links),
    ...(step.long && { [FINISH_AT_START]: finishAtStart }),
  };
}

/** The manifest's `functions` section, as slack-manifest.json holds it. */
export function manifestFunctions() {
  return Object.fromEntries(
    STEPS.map((step) => [
      step.callbackId,
      {
        title: step.title,
        description: step.description,
        input_parameters: manifestParameters({ [USER_INPUT]: userParameter, ...stepInputs(step) }),
        output_parameters: manifestParameters(STEP_OUTPUTS, ["job_id"]),
      },
    ]),
  );
}

export const stepByCallbackId = (callbackId: string) => STEPS.find((s) => s.callbackId === callbackId);

/** A step's inputs as the command's raw options (the core validates them), its file ids and its links by option. */
export function readInputs(step: StepDef, inputs: Record<string, unknown>) {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(step.options)) {
    const value = inputs[key];
    if (value !== undefined && value !== null && value !== "") options[key] = value;
  }
  const files: Record<string, string[]> = {};
  const links: Record<string, string[]> = {};
  for (const key of Object.keys(step.files)) {
    const file = inputs[key];
    const link = inputs[`${key}${LINK_SUFFIX}`];
    if (typeof file === "string" && file !== "") files[key] = [file];
    if (typeof link === "string" && link.trim() !== "") links[key] = [link.trim()];
  }
  const ends = step.long && inputs[FINISH_AT_START] === true ? ("start" as const) : ("outcome" as const);
  return { options, files, links, ends };
}

/**
 * What a step lacks of the images its command needs, in the words of Workflow Builder's inputs (the
 * command's own sentence asks to attach a file, which a workflow has no way to do).
 */
export function missingImage(
  step: StepDef,
  given: { files: Record<string, string[]>; links: Record<string, string[]> },
): Msg | undefined {
  const needed = Object.entries(commandByName(step.command)?.files ?? {}).filter(([, spec]) => spec.required);
  const missing = needed.find(([option]) => !given.files[option] && !given.links[option]);
  if (!missing) return undefined;
  // The step's and its inputs' titles as Workflow Builder shows them (the app's manifest).
  const input = step.files[missing[0]]?.title ?? missing[0];
  return msg("step.missing_image", { step: step.title, input });
}

/** The person in the step's user_context input. */
export function personOf(inputs: Record<string, unknown>): string | undefined {
  const context = inputs[USER_INPUT];
  const id = typeof context === "object" && context !== null ? (context as { id?: unknown }).id : undefined;
  return typeof id === "string" && id !== "" ? id : undefined;
}
