import {
  type APIModalInteractionResponseCallbackData,
  ComponentType,
  TextInputStyle,
} from "discord-api-types/v10";
import { DISCORD_LIMITS as L } from "../limits.js";
import { cut } from "./text.js";

/**
 * One input of a form; `name` is the option it fills and the input's custom_id. A text box, or a
 * select when the option has `choices`; `value` is shown pre-filled (a Remix of a result).
 */
export interface FormField {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  minLength?: number;
  maxLength: number;
  choices?: readonly { label: string; value: string }[];
  value?: string;
  /** A file upload taking up to this many files, instead of a text box. */
  files?: number;
}

function input(f: FormField) {
  if (f.files !== undefined) {
    return {
      type: ComponentType.FileUpload as const,
      custom_id: f.name,
      required: f.required,
      max_values: Math.min(f.files, L.modalFiles),
    };
  }
  if (f.choices) {
    return {
      type: ComponentType.StringSelect as const,
      custom_id: f.name,
      required: f.required,
      options: f.choices.slice(0, L.selectOptions).map((choice) => ({
        label: cut(choice.label, L.selectOptionLabel),
        value: choice.value,
        ...(choice.value === f.value && { default: true }),
      })),
    };
  }
  const maxLength = Math.min(f.maxLength, L.textInputMax);
  return {
    type: ComponentType.TextInput as const,
    custom_id: f.name,
    style: f.maxLength > ONE_LINE_MAX ? TextInputStyle.Paragraph : TextInputStyle.Short,
    required: f.required,
    max_length: maxLength,
    ...(f.required && f.minLength !== undefined && { min_length: f.minLength }),
    ...(f.value !== undefined && f.value.length <= maxLength && { value: f.value }),
  };
}

/** Above this a prompt-like value gets a paragraph box rather than one line. */
const ONE_LINE_MAX = 200;

/** A modal of labelled inputs (Discord's current modal layout: one Label per input). */
export function formModal(
  customId: string,
  title: string,
  fields: readonly FormField[],
): APIModalInteractionResponseCallbackData {
  if (fields.length === 0 || fields.length > L.modalComponents) {
    throw new RangeError(`a modal holds 1-${L.modalComponents} inputs, not ${fields.length}`);
  }
  return {
    custom_id: customId,
    title: cut(title, L.modalTitle),
    components: fields.map((f) => ({
      type: ComponentType.Label,
      label: cut(f.label, L.modalLabel),
      ...(f.description && { description: cut(f.description, L.modalLabelDescription) }),
      component: input(f),
    })),
  };
}
