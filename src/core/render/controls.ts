import type { ButtonStyle, CardAction } from "../cards.js";

/**
 * The controls that renderers place on their own cards: the variants' Keep buttons, a list's
 * pages and Show. Every other button comes from the action catalogue (actions/catalogue.ts
 * controlsFor), whose test checks that each of these names one of its actions.
 */
export type PlacedAction = "confirm" | "confirm_both" | "page" | "show";

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
