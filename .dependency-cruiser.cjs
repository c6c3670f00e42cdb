// The house's layers, checked on every `npm test`: machines/ (pure statecharts) <- services/ (domain logic through
// ports) <- adapters/ (opencode, storage, processes, files) <- src/ (composition). Type-only imports count too.
// testing/ (the model-test template the package exports) sits beside them: it reads machines/ and services/ only.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "machines-are-pure",
      comment: "machines/ imports xstate and its own files only: no I/O, no clock, no randomness, no other layer.",
      severity: "error",
      from: { path: "^machines/" },
      to: { pathNot: ["^machines/", "^node_modules/xstate/"] },
    },
    {
      name: "services-talk-through-ports",
      comment: "services/ never imports opencode, SQLite, drizzle, child processes, tree-kill, the file system, or the layers above it.",
      severity: "error",
      from: { path: "^services/" },
      to: {
        path: [
          "^adapters/",
          "^src/",
          "^visualizations/",
          "^node_modules/(@opencode-ai|opencode-ai|sqlite3|drizzle-orm|tree-kill)/",
          "^(node:)?(fs|fs/promises|child_process|worker_threads|net|http|https)$",
        ],
      },
    },
    {
      name: "adapters-below-composition",
      comment: "adapters/ implement ports; only src/ composes them.",
      severity: "error",
      from: { path: "^adapters/" },
      to: { path: ["^src/", "^visualizations/", "^bench/", "^test/"] },
    },
    {
      name: "visualizations-read-machines-only",
      comment: "Diagrams are drawn from the machines alone.",
      severity: "error",
      from: { path: "^visualizations/" },
      to: { path: ["^services/", "^adapters/", "^src/"] },
    },
    {
      name: "testing-drives-machines-and-services",
      comment: "The model-test template drives a machine and a service through their ports: no adapter, no composition, no test code.",
      severity: "error",
      from: { path: "^testing/" },
      to: { path: ["^adapters/", "^src/", "^visualizations/", "^test/", "^bench/"] },
    },
    {
      name: "no-product-code-from-tests",
      comment: "Product code never imports test or bench code.",
      severity: "error",
      from: { path: "^(machines|services|adapters|src|visualizations)/" },
      to: { path: ["^test/", "^bench/"] },
    },
    {
      name: "no-product-code-from-testing",
      comment: "Product code never imports the test template; only `forgecharts paths` prints its model worlds' paths (model.paths.ts, no test runner).",
      severity: "error",
      from: { path: "^(machines|services|adapters|src|visualizations)/", pathNot: "^src/cli\\.paths\\.ts$" },
      to: { path: "^testing/" },
    },
    {
      name: "cli-paths-reads-model-paths-only",
      comment: "`forgecharts paths` takes the model paths alone: never the template, which imports vitest.",
      severity: "error",
      from: { path: "^src/cli\\.paths\\.ts$" },
      to: { path: "^testing/", pathNot: "^testing/model\\.paths\\.ts$" },
    },
    {
      name: "no-cycles",
      comment: "No import cycles, type-only ones included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
}
