/**
 * Every Discord limit the adapter respects, in one place (API v10, discord.js 14). Renderers cut
 * to these before sending, so a long prompt or list becomes a shorter message instead of a 400.
 */
export const DISCORD_LIMITS = {
  /** Reply, defer or modal within this, or the interaction is dead (10062). */
  firstResponseMs: 3_000,
  /** Interaction tokens work for 15 minutes; edits switch to the bot token a minute before. */
  tokenLifetimeMs: 15 * 60_000,
  tokenSafeAgeMs: 14 * 60_000,

  /** A bot's message content. */
  content: 2_000,
  /** Nonces of message creates (enforce_nonce). */
  nonce: 25,

  embedsPerMessage: 10,
  embedTitle: 256,
  embedDescription: 4_096,
  embedFields: 25,
  embedFieldName: 256,
  embedFieldValue: 1_024,
  embedFooter: 2_048,
  /** Title, description, field names and values, footer and author of all embeds of a message. */
  embedTotal: 6_000,

  actionRows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  selectOptions: 25,
  selectOptionLabel: 100,
  selectOptionValue: 100,
  selectOptionDescription: 100,
  selectPlaceholder: 150,

  modalTitle: 45,
  /** Top-level components of a modal. */
  modalComponents: 5,
  modalLabel: 45,
  modalLabelDescription: 100,
  /** Files of one file upload in a modal. */
  modalFiles: 10,
  textInputMax: 4_000,

  autocompleteChoices: 25,
  choiceName: 100,
  choiceValue: 100,

  commandName: 32,
  commandDescription: 100,
  /** Subcommands (and options) of one command or subcommand. */
  commandOptions: 25,
  optionChoices: 25,
  stringOptionMax: 6_000,
  /** Names, descriptions, options and choices of one command together. */
  commandChars: 8_000,

  /**
   * Per attachment, for everyone without more, the bot included (it has no Nitro), since 2025-01;
   * an interaction's own limit is its `attachment_size_limit`, for uploads through its token.
   * https://discord.com/developers/docs/reference#uploading-files
   */
  defaultUploadBytes: 10 * 1024 * 1024,
  /**
   * Per attachment in a server of boost level 2 and 3, for anyone there, the bot too. From
   * Discord's Server Boosting FAQ (support.discord.com), not the API docs, which name no figure.
   */
  boostUploadBytes: { 2: 50 * 1024 * 1024, 3: 100 * 1024 * 1024 } as Readonly<
    Partial<Record<number, number>>
  >,
} as const;
