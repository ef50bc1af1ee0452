/**
 * The layering of packages/*\/src as checked rules (`npm run lint:deps`, part of `npm test`).
 * See ARCHITECTURE.md for why each boundary exists.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'No import cycle, type-only imports included: a cycle means two modules are one concept split in two, or a leaf (options, errors, contracts) grew a dependency. ' +
        "The schema converter's recursion in providers/convert/ is the one cycle by nature. " +
        "A circle closed by a dynamic import (the client's lazily loaded chunks, client/chunks/index.ts) loads after its importers ran: it is not one.",
      from: { path: '^packages/[^/]+/src/', pathNot: '^packages/ai/src/providers/convert/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    {
      name: 'dialects-at-the-edge',
      severity: 'error',
      comment:
        "A frontend's dialect (server/dialects/: AG-UI, the AI SDK, TanStack) and the HTTP edge (server/edge/) import the core, never the reverse: " +
        'claims, runs, events and the thread take an intent and the hooks a dialect gives (claim/intent.ts) and return data, never a Response a dialect must read.',
      from: { path: '^packages/ai/src/server/(claim|run|thread|events)/' },
      to: { path: '^packages/ai/src/server/(dialects|edge)/' },
    },
    {
      name: 'edge-speaks-no-dialect',
      severity: 'error',
      comment: 'The edge reads and answers the compact protocol; a dialect hooks into it (edge/reads.ts ReadFormat), it never imports one.',
      from: { path: '^packages/ai/src/server/edge/' },
      to: { path: '^packages/ai/src/server/dialects/' },
    },
    {
      name: 'thread-below-run-and-claim',
      severity: 'error',
      comment:
        'The thread (its store contract, head transitions, step helpers, the writer) is what runs and claims change: it knows neither, nor anything above it. ' +
        'The writer answers a claim with data (thread/cachedClaim.ts commitClaim: the head written, or the stored head), never by calling back into it.',
      from: { path: '^packages/ai/src/server/thread/' },
      to: { path: '^packages/ai/src/server/(stores|decisions|events|run|claim|edge|dialects)/' },
    },
    {
      name: 'events-below-run',
      severity: 'error',
      comment:
        "A run's events (events/: RunEvents, the live response, the log) are told by the run, never the other way: events/ hands run/ data (liveResponse, runEventStream) and calls back into no run, claim or dialect.",
      from: { path: '^packages/ai/src/server/events/' },
      to: { path: '^packages/ai/src/server/(run|claim|edge|dialects)/' },
    },
    {
      name: 'decisions-below-events',
      severity: 'error',
      comment: 'The gate (decisions/: records, reviewers, links, grants) is asked by claims and runs; it knows neither, nor their events.',
      from: { path: '^packages/ai/src/server/decisions/' },
      to: { path: '^packages/ai/src/server/(events|run|claim|edge|dialects)/' },
    },
    {
      name: 'stores-below-decisions',
      severity: 'error',
      comment: 'The stores implement the thread store contract (thread/threadStore.ts) and know nothing above it.',
      from: { path: '^packages/ai/src/server/stores/' },
      to: { path: '^packages/ai/src/server/(decisions|events|run|claim|edge|dialects)/' },
    },
    {
      name: 'run-below-claim',
      severity: 'error',
      comment: 'Every claim ends in a run (run/startRun.ts); a run never reaches back into the claims.',
      from: { path: '^packages/ai/src/server/run/' },
      to: { path: '^packages/ai/src/server/claim/' },
    },
    {
      name: 'server-folders-no-circle',
      severity: 'error',
      scope: 'folder',
      comment:
        "server/'s folders import one way, top to bottom (dialects → edge → claim → run → events → decisions → stores → thread): no two of them, however far apart, import each other. " +
        "The handler's own files (createChatHandler, config, options, errors, appRequest) sit beside them.",
      from: { path: '^packages/ai/src/server/' },
      to: { circular: true },
    },
    {
      name: 'client-stays-in-the-browser',
      severity: 'error',
      comment: 'The browser entry never pulls in the server runtime or the provider adapters, directly or through another module.',
      from: { path: '^packages/ai/src/client/' },
      to: { path: '^packages/ai/src/(server|providers)/', reachable: true },
    },
    {
      name: 'client-folders-meet-at-their-index',
      severity: 'error',
      comment:
        "client/'s folders (one concept each, Valibot's filing) use each other through the folder's index.ts, its face; " +
        "the chunk barrels in client/chunks/ pick the modules a lazily loaded chunk holds, file by file.",
      from: { path: '^packages/ai/src/client/([^/]+)/', pathNot: '^packages/ai/src/client/chunks/' },
      to: { path: '^packages/ai/src/client/[^/]+/', pathNot: ['^packages/ai/src/client/$1/', '^packages/ai/src/client/[^/]+/index\\.ts$'] },
    },
    {
      name: 'client-root-meets-folders-at-their-index',
      severity: 'error',
      comment: 'The same for the client itself (ChatClient, options, the entry): a folder is used through its index.ts.',
      from: { path: '^packages/ai/src/client/[^/]+$' },
      to: { path: '^packages/ai/src/client/[^/]+/', pathNot: '^packages/ai/src/client/[^/]+/index\\.ts$' },
    },
    {
      name: 'client-chunks-load-only-through-chunks',
      severity: 'error',
      comment:
        "The client's lazily loaded chunks are declared in one module, client/chunks/index.ts: its dynamic imports are the only ones, " +
        'and only it imports the barrels that say what each chunk holds (a static import of one would pull the chunk into the page).',
      from: { path: '^packages/ai/src/client/', pathNot: '^packages/ai/src/client/chunks/index\\.ts$' },
      to: { path: '^packages/ai/src/client/chunks/', pathNot: '^packages/ai/src/client/chunks/index\\.ts$' },
    },
    {
      name: 'client-dynamic-imports-only-in-chunks',
      severity: 'error',
      comment: 'A lazily loaded chunk is declared in client/chunks/index.ts, with the other four, not where it is used.',
      from: { path: '^packages/ai/src/client/', pathNot: '^packages/ai/src/client/chunks/index\\.ts$' },
      to: { dependencyTypes: ['dynamic-import'] },
    },
    {
      name: 'core-has-no-react',
      severity: 'error',
      comment: 'React lives only in @toolgate/ai-react.',
      from: { path: '^packages/ai/src/' },
      to: { path: '(^|/)node_modules/(react|react-dom)/|^react(-dom)?$' },
    },
    {
      name: 'core-does-not-import-bindings',
      severity: 'error',
      comment: 'Bindings import the core, never the other way round.',
      from: { path: '^packages/ai/src/' },
      to: { path: '^packages/ai-react/' },
    },
    {
      name: 'server-has-no-provider-adapters',
      severity: 'error',
      comment: 'The chat runtime speaks the ChatModel contract (model/); provider quirks stay in providers/, not even reached through tools/.',
      from: { path: '^packages/ai/src/server/' },
      to: { path: '^packages/ai/src/providers/', reachable: true },
    },
    {
      name: 'one-thread-writer',
      severity: 'error',
      comment:
        'Only the thread writer (server/thread/writer/) turns a change into a commit: its commit module (nextHead, commitOf) and its parts are reached only through its face, index.ts. ' +
        'That nothing else calls a store\'s `commit` is checked by packages/ai/test/server/oneWriter.test.ts, which sees calls.',
      from: { path: '^packages/ai/src/', pathNot: '^packages/ai/src/server/thread/writer/' },
      to: { path: '^packages/ai/src/server/thread/writer/', pathNot: '^packages/ai/src/server/thread/writer/index\\.ts$' },
    },
    {
      name: 'opentelemetry-only-when-asked',
      severity: 'error',
      comment:
        '@opentelemetry/api is an optional peer: only the telemetry entry imports it, and nothing else reaches that entry, so an app without telemetry loads none of it.',
      from: { path: '^packages/ai/src/', pathNot: '^packages/ai/src/telemetry/(openTelemetry|index)\\.ts$' },
      to: { path: '(^|/)node_modules/@opentelemetry/|^@opentelemetry/|^packages/ai/src/telemetry/(openTelemetry|index)\\.ts$', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^packages/[^/]+/src/|node_modules/(react|react-dom|@opentelemetry)/|^react|^@opentelemetry/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['@toolgate/source', 'import', 'types', 'default'], extensions: ['.ts', '.tsx', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
