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
} as const;
