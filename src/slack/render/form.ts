import type { ViewStateValue } from "@slack/bolt";
import type { InputBlock, InputBlockElement, KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import type { Choice } from "../../core/base/ports.js";
import type { OptionInfo } from "../../core/commands/catalogue.js";
import type { FormDef } from "../../core/commands/define.js";
import { commandTexts } from "../../core/i18n/command-texts.js";
import { spoken } from "../../core/render/help.js";
import { megabytes } from "../../core/render/text.js";
import { SLACK_LIMITS as L } from "../limits.js";
import { optionsOf } from "../options.js";
import { cut } from "./mrkdwn.js";

/**
 * The modal a command opens when the command line cannot carry what it needs (files, missing
 * required options, API keys). Generated from the catalogue: one input per option, named by the
 * option so the values come back under the same names.
 */

export const FORM_CALLBACK_ID = "media_form";

/**
 * What the form remembers between opening and submission (private_metadata, plain JSON). A
 * follow-up's form also names its action, job and control value; `command` is then the command
 * whose lists its selects search (the voices of video.avatar).
 */
export interface FormContext {
  command: string;
  channelId: string;
  followUp?: { action: string; jobId: string; value?: string };
  /** A message shortcut's: the image of the message (a Slack file) for the command's file option `option`. */
  image?: { option: string; fileId: string; jobId?: string };
  /** A settings form opened from the person's App Home: the Home shows the change. */
  home?: true;
  /** A settings form opened from a private panel: the click's response_url, which shows the change there. */
  responseUrl?: string;
}

/** Slack's file_input takes file extensions, not MIME types. */
const EXTENSIONS: Record<string, string[]> = {
  "image/png": ["png"],
  "image/jpeg": ["jpg", "jpeg"],
  "image/webp": ["webp"],
  "image/gif": ["gif"],
  "audio/mpeg": ["mp3"],
  "audio/wav": ["wav"],
  "audio/x-wav": ["wav"],
  "audio/mp4": ["m4a"],
  "audio/x-m4a": ["m4a"],
  "audio/aac": ["aac"],
  "audio/ogg": ["ogg"],
  "audio/webm": ["webm"],
};

const plain = (text: string, max: number) => ({ type: "plain_text" as const, text: cut(text, max) });

function given(options: Record<string, unknown>, name: string): string | undefined {
  const value = options[name];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined;
}

/**
 * A form is needed when the command takes an API key, needs a file or a required option that was
 * not typed, or takes files and nothing was typed (the only way to attach optional files).
 */
export function needsForm(command: FormDef, options: Record<string, unknown>): boolean {
  const infos = optionsOf(command);
  if (infos.some((o) => o.secret)) return true;
  if (command.formWhenBare && Object.keys(options).length === 0) return true;
  if (infos.some((o) => o.required && (o.type === "file" || given(options, o.name) === undefined)))
    return true;
  return infos.some((o) => o.type === "file") && Object.keys(options).length === 0;
}

const label = (name: string) => {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function numberElement(info: OptionInfo, value: string | undefined): InputBlockElement {
  const number = value === undefined ? Number.NaN : Number(value);
  const fits =
    Number.isFinite(number) &&
    (info.type === "number" || Number.isInteger(number)) &&
    (info.min === undefined || number >= info.min) &&
    (info.max === undefined || number <= info.max);
  return {
    type: "number_input",
    action_id: info.name,
    is_decimal_allowed: info.type === "number",
    ...(info.min !== undefined && { min_value: String(info.min) }),
    ...(info.max !== undefined && { max_value: String(info.max) }),
    // Slack refuses the whole view for an initial value outside the bounds; the user retypes it.
    ...(fits && { initial_value: value }),
  };
}

function selectElement(info: OptionInfo, choices: string[], value: string | undefined): InputBlockElement {
  const options: PlainTextOption[] = choices
    .slice(0, L.selectOptions)
    // A choice's label as the commands' English words name it (a language in its own words: Deutsch).
    .map((choice) => ({
      text: plain(commandTexts("en").choices[choice] ?? choice, L.optionText),
      value: choice,
    }));
  const initial = options.find((o) => o.value === value);
  return {
    type: "static_select",
    action_id: info.name,
    placeholder: plain(`Choose ${label(info.name).toLowerCase()}`, L.placeholder),
    options,
    ...(initial && { initial_option: initial }),
  };
}

/** `label`: what the initial entry of a pick list is called (a voice's name), when known. */
function element(info: OptionInfo, value: string | undefined, label?: string): InputBlockElement {
  if (info.file) {
    const types = [...new Set(info.file.types.flatMap((t) => EXTENSIONS[t] ?? []))];
    return {
      type: "file_input",
      action_id: info.name,
      ...(types.length > 0 && { filetypes: types }),
      max_files: Math.min(info.file.max, L.fileInputMaxFiles),
    };
  }
  if (info.pick) {
    return {
      type: "external_select",
      action_id: info.name,
      min_query_length: 0,
      placeholder: plain(`Search ${info.pick}`, L.placeholder),
      ...(value !== undefined && { initial_option: { text: plain(label ?? value, L.optionText), value } }),
    };
  }
  if (info.choices) return selectElement(info, info.choices, value);
  if (info.type === "boolean") {
    const option: PlainTextOption = { text: plain(info.description, L.optionText), value: "true" };
    const on = value !== undefined && /^(true|yes|on|1)$/i.test(value);
    return {
      type: "checkboxes",
      action_id: info.name,
      options: [option],
      ...(on && { initial_options: [option] }),
    };
  }
  if (info.type === "integer" || info.type === "number") return numberElement(info, value);
  const maxLength = Math.min(info.maxLength ?? L.textInputMaxLength, L.textInputMaxLength);
  return {
    type: "plain_text_input",
    action_id: info.name,
    multiline: info.main === true || maxLength > 200,
    max_length: maxLength,
    ...(info.minLength !== undefined && info.minLength > 1 && { min_length: info.minLength }),
    // An API key is never shown back, not even to the person who typed it.
    ...(value !== undefined && !info.secret && { initial_value: cut(value, maxLength) }),
  };
}

function hint(info: OptionInfo): string {
  if (!info.file)
    return info.secret
      ? `${info.description}. Only the bot sees it; it is stored encrypted.`
      : info.description;
  const bytes = Math.min(info.file.maxBytes, L.fileInputBytes);
  return `${info.description}. Up to ${info.file.max} file${info.file.max === 1 ? "" : "s"}, ${megabytes(bytes)} each.`;
}

function input(
  info: OptionInfo,
  options: Record<string, unknown>,
  picks: Record<string, readonly Choice[]>,
): InputBlock {
  const boolean = info.type === "boolean" && !info.file;
  const value = info.secret ? undefined : given(options, info.name);
  const named = picks[info.name]?.find((c) => c.value === value)?.label;
  return {
    type: "input",
    block_id: info.name,
    optional: !info.required,
    label: plain(label(info.name), L.inputLabel),
    // A checkbox already says what it does.
    ...(!boolean && { hint: plain(hint(info), L.inputHint) }),
    element: element(info, value, named),
  };
}

/**
 * `options` are shown as the inputs' values; `title` replaces the command's name (a follow-up's
 * "Edit image"); `picks` name the entries of pick lists shown as values (a voice by its name).
 */
export function formView(
  command: FormDef,
  options: Record<string, unknown>,
  context: FormContext,
  title = spoken(command.name).replaceAll("_", " "),
  picks: Record<string, readonly Choice[]> = {},
): ModalView {
  const infos = optionsOf(command);
  const intro: KnownBlock = { type: "section", text: plain(command.help, L.sectionText) };
  return {
    type: "modal",
    callback_id: FORM_CALLBACK_ID,
    private_metadata: JSON.stringify(context),
    title: plain(title.charAt(0).toUpperCase() + title.slice(1), L.viewTitle),
    submit: plain(command.submit ?? (command.starts ? "Start" : "Submit"), L.viewButton),
    close: plain("Cancel", L.viewButton),
    blocks: [intro, ...infos.slice(0, L.viewBlocks - 1).map((info) => input(info, options, picks))],
  };
}

export function readContext(privateMetadata: string): FormContext | undefined {
  try {
    const value: unknown = JSON.parse(privateMetadata);
    if (typeof value !== "object" || value === null) return undefined;
    const { command, channelId, followUp, image, home, responseUrl } = value as Record<string, unknown>;
    if (typeof command !== "string" || typeof channelId !== "string") return undefined;
    const { action, jobId, value: control } = (followUp ?? {}) as Record<string, unknown>;
    const { option, fileId, jobId: resultJobId } = (image ?? {}) as Record<string, unknown>;
    return {
      command,
      channelId,
      ...(typeof action === "string" &&
        typeof jobId === "string" && {
          followUp: { action, jobId, ...(typeof control === "string" && { value: control }) },
        }),
      ...(typeof option === "string" &&
        typeof fileId === "string" && {
          image: { option, fileId, ...(typeof resultJobId === "string" && { jobId: resultJobId }) },
        }),
      ...(home === true && { home: true as const }),
      ...(typeof responseUrl === "string" && { responseUrl }),
    };
  } catch {
    return undefined;
  }
}

export interface FormValues {
  /** Raw values by option name, as typed or chosen; empty inputs are left out. */
  options: Record<string, string>;
  /** Ids of the files given per file option. */
  files: Record<string, string[]>;
}

/** The submitted values by option name. */
export function readForm(
  command: FormDef,
  values: Record<string, Record<string, ViewStateValue>>,
): FormValues {
  const options: Record<string, string> = {};
  const files: Record<string, string[]> = {};
  for (const info of optionsOf(command)) {
    const state = values[info.name]?.[info.name];
    if (!state) continue;
    if (info.file) {
      const ids = (state.files ?? []).map((f) => f.id);
      if (ids.length > 0) files[info.name] = ids;
      continue;
    }
    const value =
      state.type === "checkboxes"
        ? state.selected_options?.length
          ? "true"
          : undefined
        : (state.selected_option?.value ?? state.value ?? undefined);
    if (value !== undefined && value !== "") options[info.name] = value;
  }
  return { options, files };
}
