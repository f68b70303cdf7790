import type { MessageKey } from "../core/i18n/catalogues.js";
import { type Msg, msg } from "../core/i18n/msg.js";
import { english } from "../core/i18n/translator.js";
import { REMOVED_FROM_WORKSPACE } from "./installations.js";

/**
 * What each of Slack's answers means for the call that got it: one table for every Web API method
 * the bot calls, from the Errors section of each method's page (docs.slack.dev/reference/methods)
 * and the errors every method may answer. test/slack/answers.test.ts walks the documented codes.
 *
 * - transient: the same call may work after a wait (Slack's trouble, a rate limit, a workspace in
 *   migration): retried a few times with backoff (calls.ts), then left to the caller's own retry.
 * - expired: a rotating token's 12 hours are over: refreshed, and the call made once more.
 * - dead: the token is refused (revoked, uninstalled, deactivated): the workspace's next token,
 *   if it has one (a reinstall, another replica's refresh), once; else the bot was removed.
 * - refused: the conversation (or the workspace) does not take this from the bot, and waiting will
 *   not change it: the delivery goes to its fallback (UndeliverableError), never retried.
 * - file: the workspace refuses the file (its admins' upload settings): the result's link goes
 *   instead (FileRefusedError), never retried.
 * - gone: what the call acts on no longer exists (a deleted message, file or thread).
 * - ended: a workflow step's execution is over.
 * - rejected: Slack will not take this request as it stands (malformed, too long, a bad trigger,
 *   a wrong argument): a mistake of the bot's that no retry fixes.
 */

export type Answer = "transient" | "expired" | "dead" | "refused" | "file" | "gone" | "ended" | "rejected";

export interface Meaning {
  answer: Answer;
  /** For refusals: one sentence for the person, saying what is wrong and who can fix it. */
  said?: Msg;
  /** `said` in English: what logs read. */
  readonly why?: string;
}

const NOT_A_MEMBER = "platform.slack.not_member";
const ARCHIVED = "platform.slack.archived";
const SETTING = "platform.slack.setting";
const PERMISSION = "platform.slack.permission";
const PERSON = "platform.slack.person";
const UNAVAILABLE = "platform.slack.unavailable";
const NO_FILE_SHARING = "platform.slack.no_file_sharing";

const transient: Meaning = { answer: "transient" };
const expired: Meaning = { answer: "expired" };
const gone: Meaning = { answer: "gone" };
const ended: Meaning = { answer: "ended" };
const rejected: Meaning = { answer: "rejected" };
const saying = (answer: "dead" | "refused" | "file", key: MessageKey): Meaning => {
  const said = msg(key);
  return {
    answer,
    said,
    get why() {
      return english().say(said);
    },
  };
};
const dead = saying("dead", REMOVED_FROM_WORKSPACE.key);
const refused = (key: MessageKey): Meaning => saying("refused", key);
const file = (key: MessageKey): Meaning => saying("file", key);

const each = (codes: string[], meaning: Meaning) => Object.fromEntries(codes.map((code) => [code, meaning]));

/** Codes that mean the same whichever method answered them. */
const CODES: Record<string, Meaning> = {
  ...each(
    [
      "internal_error",
      "fatal_error",
      "service_unavailable",
      "request_timeout",
      "ratelimited",
      "rate_limited",
      // Free workspaces' own message limits: they refill.
      "message_limit_exceeded",
      // A workspace moving into an Enterprise org is unavailable for a while.
      "team_added_to_org",
      "org_login_required",
      "external_channel_migrating",
      "update_failed",
      "file_update_failed",
      "unable_to_share_files",
      "streaming_state_conflict",
      "list_record_comment_fetch_failed",
      "timezone_count_failed",
      // The Home view changed under the publish: the next publish replaces it whole.
      "hash_conflict",
    ],
    transient,
  ),
  token_expired: expired,
  ...each(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "invalid_refresh_token"], dead),
  ...each(
    ["channel_not_found", "not_in_channel", "invalid_channel", "method_not_supported_for_channel_type"],
    refused(NOT_A_MEMBER),
  ),
  ...each(["is_archived", "is_inactive"], refused(ARCHIVED)),
  ...each(
    [
      "restricted_action",
      "restricted_action_read_only_channel",
      "restricted_action_thread_locked",
      "restricted_action_thread_only_channel",
      "restricted_action_non_threadable_channel",
      "cannot_reply_to_message",
      "posting_to_channel_denied",
      "channel_is_limited_access",
      "too_many_members",
      "team_not_found",
    ],
    refused(SETTING),
  ),
  ekm_access_denied: refused("platform.slack.suspended"),
  messages_tab_disabled: refused("platform.slack.messages_tab_off"),
  ...each(
    [
      "missing_scope",
      "no_permission",
      "not_allowed_token_type",
      "access_denied",
      "team_access_not_granted",
      "enterprise_is_restricted",
      "two_factor_setup_required",
      "accesslimited",
      "forbidden_team",
      "user_is_bot",
      "user_is_restricted",
      "user_is_ultra_restricted",
      "not_visible",
      "template_not_visible",
    ],
    refused(PERMISSION),
  ),
  ...each(
    [
      "user_not_in_channel",
      "user_not_found",
      "user_not_visible",
      "user_disabled",
      "invalid_user_combination",
    ],
    refused(PERSON),
  ),
  ...each(
    [
      "not_enabled",
      "plan_upgrade_required",
      "upgrade_required",
      "upgrade_require",
      "method_deprecated",
      "deprecated_endpoint",
      "preview_feature_not_available",
      "canvas_disabled_file_team",
      "canvas_disabled_user_team",
      "canvas_globally_disabled",
      "slack_connect_canvas_sharing_blocked",
      "slack_connect_lists_sharing_blocked",
    ],
    refused(UNAVAILABLE),
  ),
  file_uploads_disabled: file("platform.slack.uploads_off"),
  file_upload_size_restricted: file("platform.slack.upload_size_restricted"),
  file_type_not_allowed: file("platform.slack.file_type_not_allowed"),
  file_uploads_except_images_disabled: file("platform.slack.images_only"),
  storage_limit_reached: file("platform.slack.storage_full"),
  ...each(
    [
      "blocked_file_type",
      "slack_connect_blocked_file_type",
      "slack_connect_file_upload_sharing_blocked",
      "slack_connect_clip_sharing_blocked",
      "slack_connect_file_link_sharing_blocked",
    ],
    file("platform.slack.file_type_channel"),
  ),
  ...each(["max_file_sharing_exceeded", "file_share_limit_reached"], file("platform.slack.share_limit")),
  ...each(
    [
      "message_not_found",
      "cant_update_message",
      "edit_window_closed",
      "file_deleted",
      "file_is_deleted",
      "file_not_found",
      "thread_not_found",
    ],
    gone,
  ),
  ...each(["execution_not_in_running_state", "function_execution_not_found"], ended),
  ...each(
    [
      "invalid_arg_name",
      "invalid_arguments",
      "invalid_array_arg",
      "invalid_charset",
      "invalid_form_data",
      "invalid_post_type",
      "missing_post_type",
      "missing_charset",
      "superfluous_charset",
      "invalid_json",
      "json_not_object",
      "insecure_request",
      "missing_args",
      "missing_argument",
      "invalid_blocks",
      "invalid_blocks_format",
      "block_mismatch",
      "msg_too_long",
      "msg_blocks_too_long",
      "no_text",
      "too_many_attachments",
      "too_many_contact_cards",
      "attachment_payload_limit_exceeded",
      "invalid_attachments",
      "markdown_text_conflict",
      "as_user_not_supported",
      "cant_broadcast_message",
      "no_dual_broadcast_content_update",
      "metadata_must_be_sent_from_app",
      "metadata_too_large",
      "invalid_metadata_format",
      "invalid_metadata_schema",
      "missing_file_data",
      "draft_already_deleted",
      "draft_already_sent",
      "draft_has_conflict",
      "draft_not_found",
      "duplicate_channel_not_found",
      "duplicate_message_not_found",
      "duplicate_external_id",
      "view_too_large",
      "missing_profile_id",
      "not_implemented",
      "parameter_validation_failed",
      "unknown_method",
      "alt_txt_too_large",
      "unknown_snippet_type",
      "unknown_subtype",
      "snippet_too_large",
      "channels_limit_exceeded",
      "invalid_cursor",
      "invalid_ts_latest",
      "invalid_ts_oldest",
      "invalid_metadata_filter_keys",
      "not_enough_users",
      "too_many_users",
      "users_list_not_supplied",
      "invalid_team",
      "users_not_found",
      "exchanged_trigger_id",
      "expired_trigger_id",
      "invalid_trigger_id",
      "not_bearer_token",
      "bad_client_secret",
      "bad_redirect_uri",
      "cannot_install_an_org_installed_app",
      "invalid_client_id",
      "invalid_code",
      "invalid_code_verifier",
      "invalid_grant_type",
      "no_scopes",
      "oauth_authorization_url_mismatch",
      "pkce_not_allowed",
      "user_email_unverified",
    ],
    rejected,
  ),
};

/** Where a method means something else by a code than the table above. */
const BY_METHOD: Record<string, Record<string, Meaning>> = {
  "files.completeUploadExternal": {
    // "Could not find the file from the upload ticket": the bytes did not land; a new upload may.
    file_not_found: transient,
    // The message is accepted there, its files are not.
    posting_to_channel_denied: file(NO_FILE_SHARING),
  },
  "chat.delete": {
    cant_delete_message: refused("platform.slack.delete_not_own"),
    compliance_exports_prevent_deletion: refused("platform.slack.delete_compliance"),
    channel_not_found: refused("platform.slack.delete_unseen"),
  },
  "files.delete": {
    cant_delete_file: refused("platform.slack.delete_file"),
  },
  "chat.update": {
    // Sharing a file into the message was refused: its files stay in the thread.
    posting_to_channel_denied: file(NO_FILE_SHARING),
  },
};

/** Every Web API method the bot calls (Bolt's own calls included): the table answers for each. */
export const METHODS_CALLED = new Set([
  "auth.test",
  "auth.revoke",
  "apps.connections.open",
  "oauth.v2.access",
  "chat.postMessage",
  "chat.update",
  "chat.delete",
  "chat.postEphemeral",
  "conversations.history",
  "conversations.replies",
  "conversations.join",
  "conversations.open",
  "files.getUploadURLExternal",
  "files.completeUploadExternal",
  "files.info",
  "files.delete",
  "functions.completeSuccess",
  "functions.completeError",
  "users.info",
  "usergroups.list",
  "views.open",
  "views.publish",
]);

/** The table's meaning of `code` from `method`, or undefined for a code Slack does not document. */
export function answerOf(method: string, code: string): Meaning | undefined {
  return BY_METHOD[method]?.[code] ?? CODES[code];
}

/**
 * The meaning of an answer; a code nobody documented is taken as passing trouble ("other errors
 * can be returned in the case where the service is down", every method page says): a bounded
 * retry, then the caller's own.
 */
export function classify(method: string, code: string): Meaning {
  return answerOf(method, code) ?? transient;
}
