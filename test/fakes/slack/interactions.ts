import { materialize, viewPayload } from "./methods/views.js";
import type { ResponseUrlPost, SlackFile, SlackState, SlackView } from "./state.js";

/** A payload Slack would send for a user's gesture, with the trigger and response_url it carries. */
export interface Built<P> {
  payload: P;
  triggerId: string;
  responseUrl?: string;
  /** Live: fills as the app posts to the response_url. */
  responseUrlPosts: ResponseUrlPost[];
}

export interface SlashCommandInput {
  command?: string;
  text?: string;
  /** A user id; defaults to the requester. */
  user?: string;
  channel?: string;
}

export interface BlockActionInput {
  actionId: string;
  /** The ts of the (channel or ephemeral) message holding the element. */
  message: string;
  /** A button's value, or the value of the option picked in a select / overflow. */
  value?: string;
  blockId?: string;
  user?: string;
  channel?: string;
}

/** Per action_id: text for text inputs, option values for selects, user/channel ids, files for file_input. */
export type InputValue = string | string[] | SlackFile[];

export interface ViewSubmissionInput {
  viewId: string;
  values?: Record<string, InputValue>;
  user?: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Who acts: by default the requester of the channel's workspace; a member of another one cannot. */
function actor(state: SlackState, id: string | undefined, teamId: string) {
  const user = state.users.get(id ?? state.workspace(teamId).userIds.requester);
  if (!user) throw new Error(`fake Slack: unknown user ${id}`);
  if (user.team_id !== teamId) throw new Error(`fake Slack: ${user.id} is not a member of ${teamId}`);
  return { id: user.id, username: user.name, name: user.name, team_id: user.team_id };
}

function channelOf(state: SlackState, id: string | undefined) {
  const channel = state.channels.get(id ?? state.channelId);
  if (!channel) throw new Error(`fake Slack: unknown channel ${id}`);
  return { ...channel, team: state.workspace(channel.teamId) };
}

export function slashCommand(state: SlackState, input: SlashCommandInput): Built<Record<string, string>> {
  const channel = channelOf(state, input.channel);
  const user = actor(state, input.user, channel.teamId);
  const triggerId = state.issueTrigger(user.id);
  const response = state.issueResponseUrl("commands", user.id, channel.id);
  const payload = {
    token: state.verificationToken,
    team_id: channel.team.id,
    team_domain: channel.team.domain,
    channel_id: channel.id,
    channel_name: channel.name,
    user_id: user.id,
    user_name: user.name,
    command: input.command ?? "/media",
    text: input.text ?? "",
    api_app_id: state.appId,
    is_enterprise_install: "false",
    response_url: response.url,
    trigger_id: triggerId,
  };
  return { payload, triggerId, responseUrl: response.url, responseUrlPosts: response.posts };
}

/** Every element a user can act on in a block, with the block that holds it. */
function elementsOf(blocks: unknown[]): { block: Json; element: Json }[] {
  return blocks.filter(isObject).flatMap((block) => {
    const candidates = [
      block.accessory,
      block.element,
      ...(Array.isArray(block.elements) ? block.elements : []),
    ];
    return candidates.filter(isObject).map((element) => ({ block, element }));
  });
}

function optionsOf(element: Json): Json[] {
  const groups = Array.isArray(element.option_groups) ? element.option_groups.filter(isObject) : [];
  return [element.options, ...groups.map((g) => g.options)]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .filter(isObject);
}

/** The option a user picks: it must exist, except in external selects whose options come from the app. */
function pick(element: Json, value: string): Json {
  const option = optionsOf(element).find((o) => o.value === value);
  if (option) return option;
  if (String(element.type).includes("external")) return { text: { type: "plain_text", text: value }, value };
  throw new Error(`fake Slack: ${String(element.action_id)} has no option ${value}`);
}

function actionOf(state: SlackState, block: Json, element: Json, input: BlockActionInput): Json {
  const base = {
    type: element.type,
    action_id: input.actionId,
    block_id: input.blockId ?? block.block_id ?? state.secret(3),
    action_ts: state.nextTs(),
  };
  if (element.type === "button") {
    return {
      ...base,
      text: element.text,
      value: input.value ?? element.value,
      ...(element.style ? { style: element.style } : {}),
    };
  }
  if (input.value !== undefined && optionsOf(element).length > 0)
    return { ...base, selected_option: pick(element, input.value) };
  return { ...base, value: input.value };
}

export function blockAction(state: SlackState, input: BlockActionInput): Built<Json> {
  const channel = channelOf(state, input.channel);
  const user = actor(state, input.user, channel.teamId);
  const message = state.findMessage(channel.id, input.message);
  const ephemeral = message ? undefined : state.findEphemeral(input.message);
  const blocks = message?.blocks ?? ephemeral?.blocks;
  if (!blocks) throw new Error(`fake Slack: no message ${input.message} in ${channel.id}`);
  const found = elementsOf(blocks).find(({ element }) => element.action_id === input.actionId);
  if (!found) throw new Error(`fake Slack: message ${input.message} has no element ${input.actionId}`);
  const triggerId = state.issueTrigger(user.id);
  const response = state.issueResponseUrl("actions", user.id, channel.id, {
    ts: input.message,
    ephemeral: !message,
  });
  const { channel: _channel, ...shownMessage } = message ?? {};
  const payload = {
    type: "block_actions",
    user,
    api_app_id: state.appId,
    token: state.verificationToken,
    container: { type: "message", message_ts: input.message, channel_id: channel.id, is_ephemeral: !message },
    trigger_id: triggerId,
    team: { id: channel.team.id, domain: channel.team.domain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel.id, name: channel.name },
    // Slack leaves the message out for clicks in ephemeral messages.
    ...(message ? { message: shownMessage } : {}),
    state: { values: {} },
    response_url: response.url,
    actions: [actionOf(state, found.block, found.element, input)],
  };
  return { payload, triggerId, responseUrl: response.url, responseUrlPosts: response.posts };
}

export interface MessageShortcutInput {
  /** The shortcut's callback_id, as the app's manifest declares it. */
  callbackId: string;
  /** The ts of the channel message it is used on. */
  message: string;
  user?: string;
  channel?: string;
}

/** A message shortcut ("message_action"), as Slack sends it: the whole message, a trigger and a response_url. */
export function messageShortcut(state: SlackState, input: MessageShortcutInput): Built<Json> {
  const channel = channelOf(state, input.channel);
  const user = actor(state, input.user, channel.teamId);
  const message = state.findMessage(channel.id, input.message);
  if (!message) throw new Error(`fake Slack: no message ${input.message} in ${channel.id}`);
  const triggerId = state.issueTrigger(user.id);
  const response = state.issueResponseUrl("actions", user.id, channel.id);
  const { channel: _channel, upload: _upload, ...shownMessage } = message;
  const payload = {
    type: "message_action",
    token: state.verificationToken,
    action_ts: state.nextTs(),
    team: { id: channel.team.id, domain: channel.team.domain },
    user,
    channel: { id: channel.id, name: channel.name },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: input.callbackId,
    trigger_id: triggerId,
    response_url: response.url,
    message_ts: message.ts,
    message: shownMessage,
  };
  return { payload, triggerId, responseUrl: response.url, responseUrlPosts: response.posts };
}

const SELECTED_KEY: Record<string, string> = {
  users_select: "selected_user",
  conversations_select: "selected_conversation",
  channels_select: "selected_channel",
  datepicker: "selected_date",
  timepicker: "selected_time",
};

/** One input's entry in view.state.values, in the shape Slack gives each element type. */
function stateValue(element: Json, input: InputValue | undefined): Json {
  const type = String(element.type);
  const key = SELECTED_KEY[type];
  if (key) return { type, [key]: input ?? null };
  if (type === "file_input") return { type, files: input ?? [] };
  if (type === "multi_static_select" || type === "multi_external_select" || type === "checkboxes") {
    return { type, selected_options: ((input as string[] | undefined) ?? []).map((v) => pick(element, v)) };
  }
  if (type === "static_select" || type === "external_select" || type === "radio_buttons") {
    return { type, selected_option: typeof input === "string" ? pick(element, input) : null };
  }
  return { type, value: input ?? null };
}

/** Slack reports every input block of the view, filled or not. */
function stateValues(view: SlackView, values: Record<string, InputValue>): SlackView["state"]["values"] {
  const unknown = new Set(Object.keys(values));
  const result: SlackView["state"]["values"] = {};
  for (const { block, element } of elementsOf(view.blocks)) {
    if (block.type !== "input" || typeof element.action_id !== "string") continue;
    unknown.delete(element.action_id);
    const blockId = String(block.block_id ?? element.action_id);
    result[blockId] = {
      ...result[blockId],
      [element.action_id]: stateValue(element, values[element.action_id]),
    };
  }
  if (unknown.size > 0)
    throw new Error(`fake Slack: view ${view.id} has no input ${[...unknown].join(", ")}`);
  return result;
}

export function viewSubmission(state: SlackState, input: ViewSubmissionInput): Built<Json> {
  const view = state.views.get(input.viewId);
  if (!view?.open) throw new Error(`fake Slack: no open view ${input.viewId}`);
  const team = state.workspace(view.team_id);
  const user = actor(state, input.user ?? view.user, team.id);
  const triggerId = state.issueTrigger(user.id);
  const payload = {
    type: "view_submission",
    team: { id: team.id, domain: team.domain },
    user,
    api_app_id: state.appId,
    token: state.verificationToken,
    trigger_id: triggerId,
    view: { ...viewPayload(view), state: { values: stateValues(view, input.values ?? {}) } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
  return { payload, triggerId, responseUrlPosts: [] };
}

/** What the modal does after the app answers a submission (response_action, or nothing: it closes). */
export function applyViewAnswer(state: SlackState, viewId: string, answer: unknown): void {
  const view = state.views.get(viewId);
  if (!view) return;
  const action = isObject(answer) ? answer.response_action : undefined;
  const next = isObject(answer) && isObject(answer.view) ? answer.view : undefined;
  if (action === "errors") return;
  if (action === "update" && next) {
    state.views.set(viewId, materialize(state, next, viewId, view.user));
  } else if (action === "push" && next) {
    const pushed = materialize(state, next, state.nextId("V"), view.user);
    state.views.set(pushed.id, { ...pushed, root_view_id: view.root_view_id, previous_view_id: view.id });
  } else {
    view.open = false;
  }
}

export interface HomeActionInput {
  /** The user whose Home tab holds the element (and who acts). */
  user: string;
  actionId: string;
  /** A button's value, or the value of the option picked in a select. */
  value?: string;
}

/**
 * A click in a user's App Home tab, as Slack sends it: the view in place of a message, no channel
 * and no response_url (a Home is no conversation), a trigger for a modal.
 */
export function homeAction(state: SlackState, input: HomeActionInput): Built<Json> {
  const home = state.homes.get(input.user);
  if (!home) throw new Error(`fake Slack: ${input.user} has no Home tab published`);
  const team = state.workspace(home.team_id);
  const user = actor(state, input.user, team.id);
  const found = elementsOf(home.blocks).find(({ element }) => element.action_id === input.actionId);
  if (!found) throw new Error(`fake Slack: the Home of ${input.user} has no element ${input.actionId}`);
  const triggerId = state.issueTrigger(user.id);
  const payload = {
    type: "block_actions",
    user,
    api_app_id: state.appId,
    token: state.verificationToken,
    container: { type: "view", view_id: home.id },
    trigger_id: triggerId,
    team: { id: team.id, domain: team.domain },
    enterprise: null,
    is_enterprise_install: false,
    view: viewPayload(home),
    actions: [actionOf(state, found.block, found.element, { ...input, message: "" })],
  };
  return { payload, triggerId, responseUrlPosts: [] };
}
