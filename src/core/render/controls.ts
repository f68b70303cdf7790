import type { ButtonStyle, CardAction, CardSelect } from "../base/cards.js";

/**
 * The controls that renderers place on their own cards: the variants' Keep buttons, a list's
 * pages and Show. Every other button comes from the action catalogue (actions/catalogue.ts
 * controlsFor), whose test checks that each of these names one of its actions.
 */
export type PlacedAction =
  | "confirm"
  | "confirm_both"
  | "page"
  | "show"
  | "panel"
  | "my_default"
  | "my_language"
  | "server_default"
  | "delete_preset"
  | "negative_prompt"
  | "delete_result";

export interface ButtonOptions {
  style?: ButtonStyle | undefined;
  value?: string;
}

/**
 * A button for action `name` on job `jobId` (or, for a list's controls, on the list so named); the
 * value, when the action takes one, is checked on click. Renderers name a PlacedAction; the
 * catalogue's actionButton any of its actions.
 */
export function controlButton(
  name: PlacedAction,
  jobId: string,
  label: string,
  options: ButtonOptions = {},
): CardAction {
  return buttonOf(name, jobId, label, options);
}

/** The card's control for any action's name: callers check the name (controlButton, actionButton). */
export function buttonOf(
  name: string,
  jobId: string,
  label: string,
  options: ButtonOptions = {},
): CardAction {
  return {
    type: "button",
    action: name,
    jobId,
    label,
    style: options.style ?? "secondary",
    ...(options.value !== undefined && { value: options.value }),
  };
}

/** A select for action `name` on `jobId` (a setting's name): the option chosen is its value. */
export function controlSelect(
  name: PlacedAction,
  jobId: string,
  select: Omit<CardSelect, "action" | "jobId">,
): CardSelect {
  return { action: name, jobId, ...select };
}
