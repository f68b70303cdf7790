import type { ViewStateValue } from "@slack/bolt";
import type { InputBlock, InputBlockElement, KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import type { Choice } from "../../core/base/ports.js";
import type { OptionInfo } from "../../core/commands/catalogue.js";
import type { FormDef } from "../../core/commands/define.js";
import { type FormWords, formWords } from "../../core/home/form-words.js";
import { spoken } from "../../core/render/help.js";
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

/** What the inputs of one form are made with: its definition and its reader's words. */
interface Making {
  form: FormDef;
  words: FormWords;
}

function selectElement(
  info: OptionInfo,
  choices: string[],
  value: string | undefined,
  { words }: Making,
): InputBlockElement {
  const options: PlainTextOption[] = choices
    .slice(0, L.selectOptions)
    // A choice's label in the reader's words (a language in its own: Deutsch); its value English.
    .map((choice) => ({ text: plain(words.choice(choice), L.optionText), value: choice }));
  const initial = options.find((o) => o.value === value);
  return {
    type: "static_select",
    action_id: info.name,
    placeholder: plain(words.choose(words.label(info.name, label(info.name))), L.placeholder),
    options,
    ...(initial && { initial_option: initial }),
  };
}

/** `label`: what the initial entry of a pick list is called (a voice's name), when known. */
function element(
  info: OptionInfo,
  value: string | undefined,
  making: Making,
  label?: string,
): InputBlockElement {
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
      placeholder: plain(making.words.search(info.pick), L.placeholder),
      ...(value !== undefined && { initial_option: { text: plain(label ?? value, L.optionText), value } }),
    };
  }
  if (info.choices) return selectElement(info, info.choices, value, making);
  if (info.type === "boolean") {
    const option: PlainTextOption = { text: plain(checkboxText(info, making), L.optionText), value: "true" };
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

function hint(info: OptionInfo, { form, words }: Making): string {
  return words.hint(form, info, Math.min(info.file?.maxBytes ?? 0, L.fileInputBytes));
}

/**
 * A checkbox says what it does: its option's description, where an option's text fits it; a
 * longer one (a language that says more) is the input's hint, and the checkbox repeats its label.
 */
const describes = (info: OptionInfo, making: Making) =>
  making.words.description(making.form, info).length <= L.optionText;

function checkboxText(info: OptionInfo, making: Making): string {
  return describes(info, making)
    ? making.words.description(making.form, info)
    : making.words.label(info.name, label(info.name));
}

function input(
  info: OptionInfo,
  options: Record<string, unknown>,
  picks: Record<string, readonly Choice[]>,
  making: Making,
): InputBlock {
  const checkbox = info.type === "boolean" && !info.file && describes(info, making);
  const value = info.secret ? undefined : given(options, info.name);
  const named = picks[info.name]?.find((c) => c.value === value)?.label;
  return {
    type: "input",
    block_id: info.name,
    optional: !info.required,
    label: plain(making.words.label(info.name, label(info.name)), L.inputLabel),
    // A checkbox already says what it does.
    ...(!checkbox && { hint: plain(hint(info, making), L.inputHint) }),
    element: element(info, value, making, named),
  };
}

/**
 * `options` are shown as the inputs' values; `title` replaces the command's name (a follow-up's
 * "Edit image", in the reader's words: `FormWords.title`); `picks` name the entries of pick lists
 * shown as values (a voice by its name); `words` are the reader's language.
 */
export function formView(
  command: FormDef,
  options: Record<string, unknown>,
  context: FormContext,
  title?: string,
  picks: Record<string, readonly Choice[]> = {},
  words: FormWords = formWords("en"),
): ModalView {
  const infos = optionsOf(command);
  const making: Making = { form: command, words };
  const named =
    title ?? words.title({ command: command.name }, spoken(command.name).replaceAll("_", " "), L.viewTitle);
  const intro: KnownBlock = { type: "section", text: plain(words.intro(command), L.sectionText) };
  return {
    type: "modal",
    callback_id: FORM_CALLBACK_ID,
    private_metadata: JSON.stringify(context),
    title: plain(named.charAt(0).toUpperCase() + named.slice(1), L.viewTitle),
    submit: plain(words.submit(command), L.viewButton),
    close: plain(words.close, L.viewButton),
    blocks: [intro, ...infos.slice(0, L.viewBlocks - 1).map((info) => input(info, options, picks, making))],
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
