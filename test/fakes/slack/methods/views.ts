import type { AnyBlock } from "@slack/types";
import { watched } from "../../watch.js";
import { viewErrors } from "../blocks.js";
import type { SlackState, SlackView, Workspace } from "../state.js";
import { type Args, type Failure, fail, isFailure, jsonArg, type Method, str } from "./args.js";

/** Slack answers a malformed view with invalid_arguments and its reasons in response_metadata. */
function readView(args: Args): Record<string, unknown> | Failure {
  const view = jsonArg(args, "view");
  watched.shown("slack", "view", view);
  const errors = viewErrors(view);
  watched.refused("slack", "view", errors);
  if (errors.length > 0) {
    return fail("invalid_arguments", { response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });
  }
  return view as Record<string, unknown>;
}

function newHash(state: SlackState): string {
  return `${Math.floor(Date.now() / 1000)}.${state.secret(4)}`;
}

function externalIdTaken(state: SlackState, externalId: unknown, except?: string): boolean {
  return (
    typeof externalId === "string" &&
    externalId !== "" &&
    [...state.views.values()].some((v) => v.external_id === externalId && v.id !== except)
  );
}

/** Builds the stored view as Slack echoes it: the caller's fields plus ids, hash and an empty state. */
export function materialize(
  state: SlackState,
  input: Record<string, unknown>,
  id: string,
  user: string,
): SlackView {
  const team: Workspace = state.workspace(state.users.get(user)?.team_id ?? state.teamId);
  return {
    ...input,
    type: String(input.type),
    blocks: (input.blocks as AnyBlock[] | undefined) ?? [],
    id,
    team_id: team.id,
    private_metadata: (input.private_metadata as string | undefined) ?? "",
    callback_id: (input.callback_id as string | undefined) ?? "",
    external_id: (input.external_id as string | undefined) ?? "",
    state: { values: {} },
    hash: newHash(state),
    clear_on_close: input.clear_on_close === true,
    notify_on_close: input.notify_on_close === true,
    root_view_id: id,
    previous_view_id: null,
    app_id: state.appId,
    app_installed_team_id: team.id,
    bot_id: team.botId,
    user,
    open: true,
  };
}

/** The wire form of a view: without the fake's own bookkeeping. */
export function viewPayload(view: SlackView): Omit<SlackView, "user" | "open"> {
  const { user: _user, open: _open, ...rest } = view;
  return rest;
}

/** A Home tab holds at most this much JSON (Slack: view_too_large). */
const HOME_BYTES = 250_000;

export const viewMethods: Record<string, Method> = {
  "views.publish": {
    token: "bot",
    run({ state, args, team }) {
      const userId = str(args, "user_id");
      if (!userId) return fail("invalid_arguments");
      const user = state.users.get(userId);
      if (!user || user.team_id !== team.id) return fail("user_not_found");
      const input = readView(args);
      if (isFailure(input)) return input;
      if (input.type !== "home") return fail("invalid_arguments");
      if (JSON.stringify(input).length > HOME_BYTES) return fail("view_too_large");
      const current = state.homes.get(userId);
      const hash = str(args, "hash");
      if (current && hash !== undefined && hash !== current.hash) return fail("hash_conflict");
      const view = materialize(state, input, current?.id ?? state.nextId("V"), userId);
      state.homes.set(userId, view);
      return { ok: true, view: viewPayload(view) };
    },
  },
  "views.open": {
    token: "bot",
    run({ state, args, team }) {
      const triggerId = str(args, "trigger_id");
      if (!triggerId) return fail("invalid_arguments");
      const trigger = state.triggers.get(triggerId);
      // A trigger works only with the token of the workspace it was given in.
      if (!trigger || state.users.get(trigger.user)?.team_id !== team.id) return fail("invalid_trigger_id");
      if (trigger.used) return fail("exchanged_trigger_id");
      if (Date.now() - trigger.issuedAt > state.triggerTtlMs) return fail("expired_trigger_id");
      const input = readView(args);
      if (isFailure(input)) return input;
      if (externalIdTaken(state, input.external_id)) return fail("duplicate_external_id");
      trigger.used = true;
      const view = materialize(state, input, state.nextId("V"), trigger.user);
      state.views.set(view.id, view);
      return { ok: true, view: viewPayload(view) };
    },
  },
  "views.update": {
    token: "bot",
    run({ state, args, team }) {
      const viewId = str(args, "view_id");
      const externalId = str(args, "external_id");
      if (!viewId && !externalId) return fail("invalid_arguments");
      const current = [...state.views.values()].find(
        (v) => v.team_id === team.id && (viewId ? v.id === viewId : v.external_id === externalId),
      );
      if (!current) return fail("not_found");
      const hash = str(args, "hash");
      if (hash !== undefined && hash !== current.hash) return fail("hash_conflict");
      const input = readView(args);
      if (isFailure(input)) return input;
      if (externalIdTaken(state, input.external_id, current.id)) return fail("duplicate_external_id");
      const view = { ...materialize(state, input, current.id, current.user), open: current.open };
      state.views.set(view.id, view);
      return { ok: true, view: viewPayload(view) };
    },
  },
};
