import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIComponentInMessageActionRow,
  type APIStringSelectComponent,
  ButtonStyle,
  ComponentType,
} from "discord-api-types/v10";
import type { CardAction, ButtonStyle as CardButtonStyle, CardSelect } from "../../core/base/cards.js";
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

function button(action: CardAction): APIButtonComponentWithCustomId {
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

/**
 * A select has no label of its own in Discord: each option carries it ("Aspect ratio: 16:9"), so
 * the chosen one still says what it is once the list is closed.
 */
function select(control: CardSelect): APIStringSelectComponent {
  return {
    type: ComponentType.StringSelect,
    custom_id: encodeControlId({ action: control.action, jobId: control.jobId }),
    placeholder: cut(control.placeholder, L.selectPlaceholder),
    min_values: 1,
    max_values: 1,
    options: control.options.slice(0, L.selectOptions).map((option) => ({
      label: cut(`${control.label}: ${option.label}`, L.selectOptionLabel),
      value: option.value,
      ...(option.value === control.selected && { default: true }),
    })),
  };
}

/**
 * A card's selects, one to a row, then its buttons, five to a row; whatever does not fit in five
 * rows is left out.
 */
export function actionRows(actions: readonly CardAction[], selects: readonly CardSelect[] = []): Row[] {
  const rows: Row[] = selects
    .slice(0, L.actionRows)
    .map((control) => ({ type: ComponentType.ActionRow, components: [select(control)] }));
  for (let i = 0; i < actions.length && rows.length < L.actionRows; i += L.buttonsPerRow) {
    rows.push({
      type: ComponentType.ActionRow,
      components: actions.slice(i, i + L.buttonsPerRow).map(button),
    });
  }
  return rows;
}
