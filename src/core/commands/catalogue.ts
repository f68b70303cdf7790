import { z } from "zod";
import { budget } from "./budget.js";
import type { AnyCommand, FormDef, OptionInfo } from "./define.js";
import { help } from "./help.js";
import { imageEdit, imageGenerate, imageInpaint } from "./image.js";
import { jobs } from "./jobs.js";
import {
  avatars,
  mockupAssets,
  mockupList,
  mockupVideos,
  thumbnailList,
  videoList,
  voices,
} from "./lists.js";
import { mockupAsset, mockupAssetEdit, mockupGenerate, mockupVideo } from "./mockup.js";
import { withPersonalOptions } from "./personal.js";
import { photoAvatarDesign, photoAvatarSelfie } from "./photo-avatar.js";
import { presetDelete, presetList, presetPublish, presetRename, presetSave } from "./preset.js";
import { settings } from "./settings.js";
import { setup } from "./setup.js";
import { thumbnailGenerate } from "./thumbnail.js";
import { usage } from "./usage.js";
import { videoAvatar, videoCinematic, videoGet } from "./video.js";

export type { OptionInfo } from "./define.js";

/**
 * The one catalogue both adapters register and parse from: Discord makes one slash command per
 * group (subcommands inside) and one per single-word command; Slack reads `/media <group> <sub>`.
 */
export const COMMANDS: readonly AnyCommand[] = [
  usage,
  avatars,
  voices,
  videoAvatar,
  videoCinematic,
  videoList,
  videoGet,
  imageGenerate,
  imageEdit,
  imageInpaint,
  photoAvatarDesign,
  photoAvatarSelfie,
  mockupGenerate,
  mockupVideo,
  mockupAsset,
  mockupAssetEdit,
  mockupList,
  mockupAssets,
  mockupVideos,
  thumbnailGenerate,
  thumbnailList,
  presetSave,
  presetList,
  presetRename,
  presetDelete,
  presetPublish,
  jobs,
  setup,
  budget,
  settings,
  help,
].map(withPersonalOptions);

const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));

export function commandByName(name: string): AnyCommand | undefined {
  return BY_NAME.get(name);
}

/** Descriptions of the groups (Discord's top-level commands; Slack's `/media <group>` listing). */
export const GROUP_HELP: Record<string, string> = {
  video: "Avatar and cinematic videos",
  image: "Generate, edit and inpaint images",
  photo_avatar: "Create photo avatars from a description or a selfie",
  mockup: "Product mockups, mockup videos and assets",
  thumbnail: "Video thumbnails",
  preset: "Named sets of settings to use with any command",
};

export interface CommandGroup {
  /** "image", or a single-word command's own name. */
  name: string;
  help: string;
  /** The group's subcommands by their `sub` word; a single-word command has itself under `""`. */
  commands: { sub: string; command: AnyCommand }[];
}

export function commandGroups(): CommandGroup[] {
  const groups = new Map<string, CommandGroup>();
  for (const command of COMMANDS) {
    const [group, sub = ""] = command.name.split(".") as [string, string?];
    const entry = groups.get(group) ?? { name: group, help: GROUP_HELP[group] ?? command.help, commands: [] };
    entry.commands.push({ sub, command });
    groups.set(group, entry);
  }
  return [...groups.values()];
}

/**
 * The command the first words name (`["image", "generate", "a", "fox"]` -> image.generate with
 * two words used), also for `image-generate`-style or differently cased input.
 */
export function commandFor(words: readonly string[]): { command: AnyCommand; used: number } | undefined {
  const norm = (word: string | undefined) => word?.trim().toLowerCase().replaceAll("-", "_");
  const [first, second] = [norm(words[0]), norm(words[1])];
  const two = second === undefined ? undefined : BY_NAME.get(`${first}.${second}`);
  if (two) return { command: two, used: 2 };
  const one = first === undefined ? undefined : BY_NAME.get(first);
  return one ? { command: one, used: 1 } : undefined;
}

interface JsonSchemaLike {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/**
 * What adapters need to register and parse a command's options, read from its zod schema (via
 * `z.toJSONSchema`): required options first (Discord wants them so), then the file options.
 */
export function describeOptions(command: FormDef): OptionInfo[] {
  const shape = command.options.shape as Record<string, z.ZodType>;
  const scalars = Object.entries(shape).map(([name, schema]): OptionInfo => {
    const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchemaLike;
    const type = Array.isArray(json.type) ? json.type.find((t) => SCALAR_TYPES.has(t)) : json.type;
    const info: OptionInfo = {
      name,
      description: json.description ?? name,
      type: (SCALAR_TYPES.has(type ?? "") ? type : "string") as OptionInfo["type"],
      required: !schema.safeParse(undefined).success,
    };
    if (command.main === name) info.main = true;
    if (json.enum) info.choices = json.enum.map(String);
    if (json.minimum !== undefined) info.min = json.minimum;
    if (json.maximum !== undefined) info.max = json.maximum;
    if (json.minLength !== undefined) info.minLength = json.minLength;
    if (json.maxLength !== undefined) info.maxLength = json.maxLength;
    if (["string", "number", "boolean"].includes(typeof json.default)) {
      info.default = json.default as string | number | boolean;
    }
    const pick = command.picks?.[name];
    if (pick) info.pick = pick;
    if (command.secret?.includes(name)) info.secret = true;
    if (command.mentions?.includes(name)) info.mention = true;
    return info;
  });
  const files = Object.entries(command.files ?? {}).map(
    ([name, spec]): OptionInfo => ({
      name,
      description: spec.description,
      type: "file",
      required: spec.required,
      file: spec,
    }),
  );
  const all = [...scalars, ...files];
  return [...all.filter((o) => o.required), ...all.filter((o) => !o.required)];
}
