/**
 * Block Kit limits as Slack enforces them. Errors read like Slack's own:
 * `must be less than 3001 characters [json-pointer:/blocks/0/text/text]`.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  blockId: 255,
  actionId: 255,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  markdownText: 12_000,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  imageUrl: 3000,
  altText: 2000,
  imageTitle: 2000,
  inputLabel: 2000,
  inputHint: 2000,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  placeholder: 150,
  options: 100,
  overflowOptions: 5,
  optionText: 75,
  optionValue: 150,
  textInputMaxLength: 3000,
  fileInputMaxFiles: 10,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
} as const;

/** Slack fetches image URLs and accepts only these formats; the fake judges by the path's extension. */
const IMAGE_PATH = /\.(png|jpe?g|gif)$/i;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Check {
  readonly errors: string[] = [];
  /** Slack files the blocks show (image blocks by `slack_file`), checked against the workspace's files. */
  readonly slackFiles: { id: string; at: string }[] = [];

  fail(pointer: string, message: string): void {
    this.errors.push(`${message} [json-pointer:${pointer}]`);
  }

  string(obj: Json, key: string, at: string, max: number, { required = false, min = 1 } = {}): void {
    const value = obj[key];
    const pointer = `${at}/${key}`;
    if (value === undefined) {
      if (required) this.fail(at, `missing required field: ${key}`);
    } else if (typeof value !== "string") this.fail(pointer, "must be a string");
    else if (value.length < min) this.fail(pointer, `must be more than ${min - 1} characters`);
    else if (value.length > max) this.fail(pointer, `must be less than ${max + 1} characters`);
  }

  text(obj: Json, key: string, at: string, max: number, { required = false, plainOnly = false } = {}): void {
    const value = obj[key];
    if (value === undefined) {
      if (required) this.fail(at, `missing required field: ${key}`);
      return;
    }
    this.textObject(value, `${at}/${key}`, max, plainOnly);
  }

  textObject(value: unknown, at: string, max: number, plainOnly = false): void {
    const typeOk =
      isObject(value) && (value.type === "plain_text" || (!plainOnly && value.type === "mrkdwn"));
    if (!typeOk) this.fail(at, "failed to match all allowed schemas");
    else this.string(value, "text", at, max, { required: true });
  }

  list(obj: Json, key: string, at: string, max: number, required = false): unknown[] {
    const value = obj[key];
    if (value === undefined) {
      if (required) this.fail(at, `missing required field: ${key}`);
      return [];
    }
    if (!Array.isArray(value)) {
      this.fail(`${at}/${key}`, "must be an array");
      return [];
    }
    if (value.length > max) this.fail(`${at}/${key}`, `no more than ${max} items allowed`);
    return value;
  }

  imageUrl(obj: Json, at: string): void {
    if (obj.slack_file !== undefined) {
      if (obj.image_url !== undefined) this.fail(at, "must provide either image_url or slack_file, not both");
      this.slackFile(obj.slack_file, `${at}/slack_file`);
      return;
    }
    this.string(obj, "image_url", at, LIMITS.imageUrl, { required: true });
    const url = obj.image_url;
    if (typeof url === "string" && url.length <= LIMITS.imageUrl && !IMAGE_PATH.test(pathOf(url))) {
      this.fail(`${at}/image_url`, "downloading image failed");
    }
  }

  /** A slack_file object names the file by `id` or by `url`, exactly one of them. */
  slackFile(value: unknown, at: string): void {
    if (!isObject(value)) {
      this.fail(at, "failed to match all allowed schemas");
      return;
    }
    const { id, url } = value;
    if ((id === undefined) === (url === undefined)) this.fail(at, "must provide exactly one of id or url");
    else if (id !== undefined) {
      if (typeof id !== "string" || id === "") this.fail(`${at}/id`, "must be a string");
      else this.slackFiles.push({ id, at });
    } else if (typeof url !== "string") this.fail(`${at}/url`, "must be a string");
  }

  options(obj: Json, key: string, at: string, max: number, plainOnly: boolean): void {
    this.list(obj, key, at, max).forEach((option, i) => {
      const pointer = `${at}/${key}/${i}`;
      if (!isObject(option)) {
        this.fail(pointer, "failed to match all allowed schemas");
        return;
      }
      this.text(option, "text", pointer, LIMITS.optionText, { required: true, plainOnly });
      this.string(option, "value", pointer, LIMITS.optionValue);
    });
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

type ElementCheck = (c: Check, element: Json, at: string) => void;

function selectCheck(maxOptions: number, plainOnly: boolean): ElementCheck {
  return (c, element, at) => {
    c.text(element, "placeholder", at, LIMITS.placeholder, { plainOnly: true });
    c.options(element, "options", at, maxOptions, plainOnly);
    c.list(element, "option_groups", at, LIMITS.options);
  };
}

const ELEMENTS: Record<string, ElementCheck> = {
  button(c, element, at) {
    c.text(element, "text", at, LIMITS.buttonText, { required: true, plainOnly: true });
    c.string(element, "value", at, LIMITS.buttonValue);
    c.string(element, "url", at, LIMITS.url);
    if (element.style !== undefined && element.style !== "primary" && element.style !== "danger") {
      c.fail(`${at}/style`, "must be one of: primary, danger");
    }
  },
  static_select: selectCheck(LIMITS.options, true),
  multi_static_select: selectCheck(LIMITS.options, true),
  overflow: selectCheck(LIMITS.overflowOptions, true),
  radio_buttons: selectCheck(LIMITS.options, false),
  checkboxes: selectCheck(LIMITS.options, false),
  plain_text_input(c, element, at) {
    c.text(element, "placeholder", at, LIMITS.placeholder, { plainOnly: true });
    const max = element.max_length;
    if (typeof max === "number" && max > LIMITS.textInputMaxLength) {
      c.fail(`${at}/max_length`, `must be less than ${LIMITS.textInputMaxLength + 1}`);
    }
  },
  file_input(c, element, at) {
    const max = element.max_files;
    if (max !== undefined && (typeof max !== "number" || max < 1 || max > LIMITS.fileInputMaxFiles)) {
      c.fail(`${at}/max_files`, `must be between 1 and ${LIMITS.fileInputMaxFiles}`);
    }
  },
  image(c, element, at) {
    c.imageUrl(element, at);
    c.string(element, "alt_text", at, LIMITS.altText, { required: true });
  },
};

/** Checks an interactive element; `actionIds` holds the ids already used in the same block. */
function checkElement(c: Check, element: unknown, at: string, actionIds: Set<string>): void {
  if (!isObject(element) || typeof element.type !== "string") {
    c.fail(at, "failed to match all allowed schemas");
    return;
  }
  c.string(element, "action_id", at, LIMITS.actionId);
  const actionId = element.action_id;
  if (typeof actionId === "string") {
    if (actionIds.has(actionId)) c.fail(`${at}/action_id`, `duplicate action_id: ${actionId}`);
    actionIds.add(actionId);
  }
  ELEMENTS[element.type]?.(c, element, at);
}

type BlockCheck = (c: Check, block: Json, at: string, actionIds: Set<string>) => void;

const BLOCKS: Record<string, BlockCheck> = {
  section(c, block, at, actionIds) {
    if (block.text === undefined && block.fields === undefined) c.fail(at, "missing required field: text");
    c.text(block, "text", at, LIMITS.sectionText);
    c.list(block, "fields", at, LIMITS.sectionFields).forEach((field, i) => {
      c.textObject(field, `${at}/fields/${i}`, LIMITS.sectionFieldText);
    });
    if (block.accessory !== undefined) checkElement(c, block.accessory, `${at}/accessory`, actionIds);
  },
  header(c, block, at) {
    c.text(block, "text", at, LIMITS.headerText, { required: true, plainOnly: true });
  },
  divider() {},
  image(c, block, at) {
    c.imageUrl(block, at);
    c.string(block, "alt_text", at, LIMITS.altText, { required: true });
    c.text(block, "title", at, LIMITS.imageTitle, { plainOnly: true });
  },
  context(c, block, at) {
    c.list(block, "elements", at, LIMITS.contextElements, true).forEach((element, i) => {
      const pointer = `${at}/elements/${i}`;
      if (isObject(element) && element.type === "image") ELEMENTS.image?.(c, element, pointer);
      else c.textObject(element, pointer, LIMITS.contextText);
    });
  },
  actions(c, block, at, actionIds) {
    c.list(block, "elements", at, LIMITS.actionsElements, true).forEach((element, i) => {
      checkElement(c, element, `${at}/elements/${i}`, actionIds);
    });
  },
  input(c, block, at, actionIds) {
    c.text(block, "label", at, LIMITS.inputLabel, { required: true, plainOnly: true });
    c.text(block, "hint", at, LIMITS.inputHint, { plainOnly: true });
    if (block.element === undefined) c.fail(at, "missing required field: element");
    else checkElement(c, block.element, `${at}/element`, actionIds);
  },
  markdown(c, block, at) {
    c.string(block, "text", at, LIMITS.markdownText, { required: true });
  },
};

/** Block types Slack accepts whose inner limits the fake does not model. */
const UNCHECKED_BLOCKS = new Set(["rich_text", "video", "file", "table", "context_actions"]);

function checkBlock(c: Check, block: unknown, at: string, blockIds: Set<string>): void {
  if (!isObject(block) || typeof block.type !== "string") {
    c.fail(at, "failed to match all allowed schemas");
    return;
  }
  c.string(block, "block_id", at, LIMITS.blockId);
  if (typeof block.block_id === "string") {
    if (blockIds.has(block.block_id)) c.fail(`${at}/block_id`, `duplicate block_id: ${block.block_id}`);
    blockIds.add(block.block_id);
  }
  const check = BLOCKS[block.type];
  if (check) check(c, block, at, new Set());
  else if (!UNCHECKED_BLOCKS.has(block.type)) c.fail(at, "failed to match all allowed schemas");
}

function checkBlocks(c: Check, blocks: unknown[], at: string, max: number): void {
  if (blocks.length > max) c.fail(at, `no more than ${max} items allowed`);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    checkBlock(c, block, `${at}/${i}`, blockIds);
  });
}

/**
 * Errors for a message's `blocks` (chat.postMessage, chat.update, chat.postEphemeral, response_url).
 * With `fileShowable`, an image of a Slack file the workspace does not have, or has not finished
 * processing, is refused, as Slack does.
 */
export function messageBlockErrors(blocks: unknown[], fileShowable?: (id: string) => boolean): string[] {
  const c = new Check();
  checkBlocks(c, blocks, "/blocks", LIMITS.messageBlocks);
  for (const { id, at } of c.slackFiles) {
    if (fileShowable && !fileShowable(id)) c.fail(at, `invalid slack file: ${id}`);
  }
  return c.errors;
}

/** Errors for a modal or Home tab view (views.open, views.update); Slack leads with the view-level line. */
export function viewErrors(view: unknown): string[] {
  const c = new Check();
  const at = "/view";
  if (!isObject(view)) return [`failed to match all allowed schemas [json-pointer:${at}]`];
  if (view.type !== "modal" && view.type !== "home") c.fail(`${at}/type`, "must be one of: modal, home");
  if (view.type === "modal") {
    c.text(view, "title", at, LIMITS.viewTitle, { required: true, plainOnly: true });
    c.text(view, "submit", at, LIMITS.viewButton, { plainOnly: true });
    c.text(view, "close", at, LIMITS.viewButton, { plainOnly: true });
  }
  c.string(view, "private_metadata", at, LIMITS.privateMetadata, { min: 0 });
  c.string(view, "callback_id", at, LIMITS.callbackId, { min: 0 });
  c.string(view, "external_id", at, LIMITS.externalId, { min: 0 });
  const blocks = c.list(view, "blocks", at, Number.POSITIVE_INFINITY, true);
  checkBlocks(c, blocks, `${at}/blocks`, LIMITS.viewBlocks);
  const hasInput = blocks.some((block) => isObject(block) && block.type === "input");
  if (view.type === "modal" && hasInput && view.submit === undefined)
    c.fail(at, "missing required field: submit");
  return c.errors.length > 0 ? [`failed to match all allowed schemas [json-pointer:${at}]`, ...c.errors] : [];
}
