/**
 * Every Slack limit the adapter respects, in one place (Block Kit reference, Web API method pages,
 * and platform-facts.md where Slack documents nothing). The renderers cut text and lists to these
 * numbers before anything is sent, because Slack refuses a whole message for one long field.
 */
export const SLACK_LIMITS = {
  /** Slack (and Bolt's HTTP receiver) gives up on an interaction not acknowledged within 3 s. */
  ackMs: 3_000,
  messageBlocks: 50,
  viewBlocks: 100,
  headerText: 150,
  sectionText: 3_000,
  sectionFields: 10,
  sectionFieldText: 2_000,
  contextElements: 10,
  contextText: 3_000,
  actionsElements: 25,
  actionId: 255,
  blockId: 255,
  buttonText: 75,
  buttonValue: 2_000,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
  imageUrl: 3_000,
  altText: 2_000,
  imageTitle: 2_000,
  url: 3_000,
  /** The notification text beside the blocks; chat.postMessage refuses more than 40,000. */
  fallbackText: 3_000,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3_000,
  callbackId: 255,
  inputLabel: 2_000,
  inputHint: 2_000,
  textInputMaxLength: 3_000,
  fileInputMaxFiles: 10,
  /** Slack's file_input takes at most 10 MB per file. */
  fileInputBytes: 10 * 1024 * 1024,
  /** About 1 GB per uploaded file (second-hand figure; workspace admins may lower it). */
  uploadBytes: 1024 * 1024 * 1024,
  /** `image` blocks show only these formats; anything else is posted as a link. */
  imageBlockPath: /\.(png|jpe?g|gif)$/i,
  /**
   * The rate limit tier of each method the adapter calls (the Facts of its page), counted per
   * method per app per workspace over a minute (docs.slack.dev/apis/web-api/rate-limits).
   */
  methodTiers: {
    "chat.update": 3,
    "chat.delete": 3,
    "chat.postEphemeral": 4,
    "conversations.history": 3,
    "conversations.replies": 3,
    "conversations.join": 3,
    "conversations.open": 3,
    "files.getUploadURLExternal": 4,
    "files.completeUploadExternal": 4,
    "files.info": 4,
    "files.delete": 3,
    "functions.completeSuccess": 3,
    "functions.completeError": 3,
    "views.publish": 4,
  } as Record<string, number>,
  /** Calls per minute each tier takes at least ("50+ per minute"): the adapter keeps to these. */
  tierPerMinute: { 1: 1, 2: 20, 3: 50, 4: 100 } as Record<number, number>,
  /**
   * chat.postMessage's special tier: about one message per second per channel, with short bursts.
   * Slack gives no burst size: five in five seconds is the adapter's reading of it.
   */
  postsPerChannel: { messages: 5, perMs: 5_000 },
  /**
   * conversations.history and conversations.replies for an app distributed outside the Slack
   * Marketplace (any OAuth install of this bot): Tier 1 and 15 messages a page, Slack's change of
   * 2025-05-29 (docs.slack.dev/changelog/2025-05-terms-rate-limit-update-and-faq).
   */
  distributedHistory: { tier: 1, pageSize: 15 },
  /** An internal app (SLACK_BOT_TOKEN) keeps Tier 3 and pages of up to 999; the look-back reads 200. */
  internalHistory: { tier: 3, pageSize: 200 },
} as const;
