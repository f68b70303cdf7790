import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIComponentInMessageActionRow,
  type APIStringSelectComponent,
  ButtonStyle,
  ComponentType,
} from "discord-api-types/v10";
import type { CardAction, ButtonStyle as CardButtonStyle } from "../../core/cards.js";
import { encodeControlId } from "../custom-id.js";
import { DISCORD_LIMITS as L } from "../limits.js";
import { cut } from "./text.js";

type Row = APIActionRowComponent<APIComponentInMessageActionRow>;

const STYLES: Record<CardButtonStyle, APIButtonComponentWithCustomId["style"]> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  success: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
};

function button(action: Extract<CardAction, { type: "button" }>): APIButtonComponentWithCustomId {
  return {
    type: ComponentType.Button,
    style: STYLES[action.style],
    label: cut(action.label, L.buttonLabel),
    custom_id: encodeControlId({
      action: action.action,
      jobId: action.jobId,
      ...(action.value !== undefined && { value: action.value }),
    }),
  };
}

function select(action: Extract<CardAction, { type: "select" }>): APIStringSelectComponent {
  return {
    type: ComponentType.StringSelect,
    custom_id: encodeControlId({ action: action.action, jobId: action.jobId }),
    placeholder: cut(action.placeholder, L.selectPlaceholder),
    options: action.options
      .filter((o) => o.value.length <= L.selectOptionValue)
      .slice(0, L.selectOptions)
      .map((o) => ({
        label: cut(o.label, L.selectOptionLabel),
        value: o.value,
        ...(o.description && { description: cut(o.description, L.selectOptionDescription) }),
      })),
  };
}

/**
 * A card's controls as action rows: buttons side by side (five to a row), each select on a row of
 * its own, as Discord requires; whatever does not fit in five rows is left out.
 */
export function actionRows(actions: readonly CardAction[]): Row[] {
  const rows: Row[] = [];
  let buttons: Row | undefined;
  for (const action of actions) {
    if (action.type === "select") {
      buttons = undefined;
      rows.push({ type: ComponentType.ActionRow, components: [select(action)] });
      continue;
    }
    if (!buttons || buttons.components.length === L.buttonsPerRow) {
      buttons = { type: ComponentType.ActionRow, components: [] };
      rows.push(buttons);
    }
    buttons.components.push(button(action));
  }
  return rows.slice(0, L.actionRows);
}
