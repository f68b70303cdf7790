/**
 * The direction of src's imports (docs/how-it-works-layers.md), checked by `npm run deps`.
 * Type-only imports count (tsPreCompilationDeps): a type is a dependency a reader follows too.
 * Every rule names folders: a module's layer is the folder it is in.
 *
 * Bottom-up:
 *   src/common           the types and the error root every layer shares (a leaf)
 *   src/store            the records, on sqlite or Redis (beside it the neutral src/metrics-registry.ts)
 *   src/core/i18n        the message catalogues and the translator (a leaf of the core)
 *   src/core/base        what the whole core stands on: errors, logs, metrics, cards, the chat port
 *   src/core/api         the media service's client
 *   src/core/render      cards from view models (spending's plain data, src/core/spend/data, below it)
 *   the middle           every other folder of src/core (config, tenancy, intake, media, jobs, spend,
 *                        preferences, home, and any added later): they import downward, never in a cycle
 *   src/core/commands    the command catalogue: definitions
 *   src/core/actions     the action catalogue: definitions (may use commands)
 *   src/core/flows       orchestration
 *   src/core/bot.ts      on top, the core's one loose file: wires the flows together
 * then the adapters (src/discord, src/slack), src/http, src/cli, app.ts and main.ts.
 */
const COMMON = "^src/common/";
const STORE = "^src/store/";
const NEUTRAL = "^src/metrics-registry[.]ts$";
const CORE = "^src/core/";
const I18N = "^src/core/i18n/";
const BASE = "^src/core/base/";
const API = "^src/core/api/";
const RENDER = "^src/core/render/";
/** Plain data of spending (records and view models, the kinds): what renderers draw from. */
const SPEND_DATA = "^src/core/spend/data/";
const COMMANDS = "^src/core/commands/";
const ACTIONS = "^src/core/actions/";
const FLOWS = "^src/core/flows/";
const BOT = "^src/core/bot[.]ts$";
/** The catalogues and what runs them: nothing below may import these. */
const UPPER = [COMMANDS, ACTIONS, FLOWS, BOT];
const ADAPTERS = "^src/(discord|slack)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycle anywhere in src, type-only imports included.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "Every import resolves (else the rules below could not see it).",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
    {
      name: "common-is-a-leaf",
      severity: "error",
      comment:
        "The shared types and the error root import nothing of src: the store and the core both stand on them.",
      from: { path: COMMON },
      to: { path: "^src/", pathNot: COMMON },
    },
    {
      name: "store-imports-no-core",
      severity: "error",
      comment:
        "The store is the bottom: it imports nothing of src but itself, the shared leaf and the metrics registry.",
      from: { path: STORE },
      to: { path: "^src/", pathNot: [STORE, COMMON, NEUTRAL] },
    },
    {
      name: "core-imports-no-platform-sdk",
      severity: "error",
      comment: "src/core is platform-neutral: no Discord or Slack library, not even their types.",
      from: { path: CORE },
      to: {
        path: "(^|/)node_modules/(discord[.]js|discord-api-types|discord-api-spec|@discordjs|@slack)/",
      },
    },
    {
      name: "core-imports-nothing-above",
      severity: "error",
      comment: "src/core imports only itself, the store and neutral modules, never an adapter or the app.",
      from: { path: CORE },
      to: { path: "^src/", pathNot: [CORE, STORE, COMMON, NEUTRAL] },
    },
    {
      name: "adapters-independent",
      severity: "error",
      comment: "An adapter (src/discord, src/slack) imports no other adapter.",
      from: { path: ADAPTERS },
      to: { path: ADAPTERS, pathNot: "^src/$1/" },
    },
    {
      name: "i18n-is-a-leaf",
      severity: "error",
      comment: "The catalogues and the translator import nothing of the core: every layer may say things.",
      from: { path: I18N },
      to: { path: CORE, pathNot: I18N },
    },
    {
      name: "base-imports-base",
      severity: "error",
      comment:
        "The core's base modules import only each other, the catalogues (and the store's record types).",
      from: { path: BASE },
      to: { path: CORE, pathNot: [BASE, I18N] },
    },
    {
      name: "api-imports-base",
      severity: "error",
      comment: "The service client knows nothing of the bot: its settings are its own parameters.",
      from: { path: API },
      to: { path: CORE, pathNot: [BASE, I18N, API] },
    },
    {
      name: "render-imports-view-models",
      severity: "error",
      comment:
        "Renderers turn view models into cards: base, the catalogues, api types, spending's view models and render only.",
      from: { path: RENDER },
      to: { path: CORE, pathNot: [BASE, I18N, API, RENDER, SPEND_DATA] },
    },
    {
      name: "spend-data-is-plain",
      severity: "error",
      comment:
        "Spending's records, view models and kinds are plain data at the bottom: they import nothing of the core.",
      from: { path: SPEND_DATA },
      to: { path: CORE },
    },
    {
      name: "mid-imports-downward",
      severity: "error",
      comment:
        "The core's folders below the catalogues (config, tenancy, intake, media, jobs, spend, any new one) do not import commands, actions, flows or bot.ts.",
      from: { path: CORE, pathNot: UPPER },
      to: { path: UPPER },
    },
    {
      name: "commands-are-definitions",
      severity: "error",
      comment: "The command catalogue does not import actions, flows or bot.ts.",
      from: { path: COMMANDS },
      to: { path: [ACTIONS, FLOWS, BOT] },
    },
    {
      name: "actions-are-definitions",
      severity: "error",
      comment: "The action catalogue does not import flows or bot.ts: what a run needs comes in its context.",
      from: { path: ACTIONS },
      to: { path: [FLOWS, BOT] },
    },
    {
      name: "flows-below-bot",
      severity: "error",
      comment: "Only bot.ts wires the flows together.",
      from: { path: FLOWS },
      to: { path: BOT },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // ESM packages (p-queue) resolve through their "exports", as Node resolves them.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
