import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIComponentInMessageActionRow,
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
 * A card's buttons as action rows, five to a row; whatever does not fit in five rows is left out.
 */
export function actionRows(actions: readonly CardAction[]): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < actions.length && rows.length < L.actionRows; i += L.buttonsPerRow) {
    rows.push({
      type: ComponentType.ActionRow,
      components: actions.slice(i, i + L.buttonsPerRow).map(button),
    });
  }
  return rows;
}
