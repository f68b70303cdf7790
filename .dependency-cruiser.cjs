/**
 * The direction of src's imports (docs/how-it-works-layers.md), checked by `npm run deps`.
 * Type-only imports count (tsPreCompilationDeps): a type is a dependency a reader follows too.
 *
 * Bottom-up: src/common (the types and the error root everyone shares), src/store (and the
 * neutral src/metrics-registry.ts), then inside src/core:
 *   base    errors, redact, log (with logged-error, log-bounds, incidents), metrics, streams, bounded,
 *           cards, ports, refusals
 *   api     the media service's client
 *   render  cards from view models
 *   (mid)   everything else in core: config, tenancy, jobs/, catalog-cache, files, uploads...
 *           including folders added later (spend/): they import downward, never in a cycle
 *   commands  the command catalogue: definitions
 *   actions   the action catalogue: definitions (may use commands)
 *   flows     orchestration
 *   bot.ts    on top
 * then the adapters (src/discord, src/slack), src/http, src/cli, app.ts and main.ts.
 */
const BASE = "^src/core/base/";
const UPPER = "^src/core/(commands/|actions/|flows/|bot[.]ts$)";
/** Plain data of spending (records and view models, the kinds): what renderers draw from. */
const SPEND_DATA = "^src/core/spend/data/";

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
      from: { path: "^src/common/" },
      to: { path: "^src/", pathNot: "^src/common/" },
    },
    {
      name: "store-imports-no-core",
      severity: "error",
      comment:
        "The store is the bottom: it imports nothing of src but itself, the shared leaf and the metrics registry.",
      from: { path: "^src/store/" },
      to: { path: "^src/", pathNot: ["^src/store/", "^src/common/", "^src/metrics-registry[.]ts$"] },
    },
    {
      name: "core-imports-no-platform-sdk",
      severity: "error",
      comment: "src/core is platform-neutral: no Discord or Slack library, not even their types.",
      from: { path: "^src/core/" },
      to: {
        path: "(^|/)node_modules/(discord[.]js|discord-api-types|discord-api-spec|@discordjs|@slack)/",
      },
    },
    {
      name: "core-imports-nothing-above",
      severity: "error",
      comment: "src/core imports only itself, the store and neutral modules, never an adapter or the app.",
      from: { path: "^src/core/" },
      to: {
        path: "^src/",
        pathNot: ["^src/core/", "^src/store/", "^src/common/", "^src/metrics-registry[.]ts$"],
      },
    },
    {
      name: "adapters-independent",
      severity: "error",
      comment: "An adapter (src/discord, src/slack) imports no other adapter.",
      from: { path: "^src/(discord|slack)/" },
      to: { path: "^src/(discord|slack)/", pathNot: "^src/$1/" },
    },
    {
      name: "base-imports-base",
      severity: "error",
      comment: "The core's base modules import only each other (and the store's record types).",
      from: { path: BASE },
      to: { path: "^src/core/", pathNot: BASE },
    },
    {
      name: "api-imports-base",
      severity: "error",
      comment: "The service client knows nothing of the bot: its settings are its own parameters.",
      from: { path: "^src/core/api/" },
      to: { path: "^src/core/", pathNot: [BASE, "^src/core/api/"] },
    },
    {
      name: "render-imports-view-models",
      severity: "error",
      comment:
        "Renderers turn view models into cards: base, api types, spending's view models and render only.",
      from: { path: "^src/core/render/" },
      to: { path: "^src/core/", pathNot: [BASE, "^src/core/api/", "^src/core/render/", SPEND_DATA] },
    },
    {
      name: "spend-data-is-plain",
      severity: "error",
      comment:
        "Spending's records, view models and kinds are plain data at the bottom: they import nothing of the core.",
      from: { path: SPEND_DATA },
      to: { path: "^src/core/" },
    },
    {
      name: "mid-imports-downward",
      severity: "error",
      comment:
        "Core modules below the catalogues (config, tenancy, jobs/, spend/, any new folder) do not import commands, actions, flows or bot.ts.",
      from: { path: "^src/core/", pathNot: UPPER },
      to: { path: UPPER },
    },
    {
      name: "commands-are-definitions",
      severity: "error",
      comment: "The command catalogue does not import actions, flows or bot.ts.",
      from: { path: "^src/core/commands/" },
      to: { path: "^src/core/(actions/|flows/|bot[.]ts$)" },
    },
    {
      name: "actions-are-definitions",
      severity: "error",
      comment: "The action catalogue does not import flows or bot.ts: what a run needs comes in its context.",
      from: { path: "^src/core/actions/" },
      to: { path: "^src/core/(flows/|bot[.]ts$)" },
    },
    {
      name: "flows-below-bot",
      severity: "error",
      comment: "Only bot.ts wires the flows together.",
      from: { path: "^src/core/flows/" },
      to: { path: "^src/core/bot[.]ts$" },
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
