// Which way imports may flow in src/ (`npm run lint` runs this through dependency-cruiser; the vscode
// import ban is in eslint.config.mjs). Type-only imports count: a cycle through types alone still
// ties two modules together, so tsPreCompilationDeps reads the TypeScript before it is compiled.
// test/unit/project/architecture.test.ts proves each rule fires.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included: move the shared types to where both sides can import them.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'parsers-stand-alone',
      severity: 'error',
      comment: 'src/core/parsers turns text into typed results and knows nothing else of the project.',
      from: { path: '^src/core/parsers/' },
      to: { path: '^src/', pathNot: '^src/core/parsers/' },
    },
    {
      name: 'protocol-stand-alone',
      severity: 'error',
      comment: 'src/protocol is shared by the extension and the webview bundle, so it imports only itself.',
      from: { path: '^src/protocol/' },
      to: { path: '^src/', pathNot: '^src/protocol/' },
    },
    {
      name: 'webview-only-protocol',
      severity: 'error',
      comment: 'The webview runs in the browser: it may use src/protocol and its own files, nothing else of src/.',
      from: { path: '^src/webview/' },
      to: { path: '^src/', pathNot: '^src/(webview|protocol)/' },
    },
    {
      name: 'transport-below-host',
      severity: 'error',
      comment:
        'src/core/transport reaches hosts and hands back what their probe printed; what is done with it (core/host, the rules, fixes, fleets) comes above, never inside it.',
      from: { path: '^src/core/transport/' },
      to: {
        path: '^src/',
        pathNot: '^src/(core/(transport|probe|ssh|parsers)/|core/(l10n|errorText|shellText|regularFile)\\.ts$|constants\\.ts$)',
      },
    },
    {
      name: 'transport-through-its-index',
      severity: 'error',
      comment:
        "Every way of reaching a host is chosen through src/core/transport/index.ts (HostSource, probeHost): its runners, the demo, saved folders and the relay are that folder's own, so a new one touches only it.",
      from: { path: '^src/', pathNot: '^src/core/transport/' },
      to: { path: '^src/core/transport/', pathNot: '^src/core/transport/index\\.ts$' },
    },
    {
      name: 'fixes-below-host',
      severity: 'error',
      comment:
        'A fix probes its host through src/core/transport, as core/host does; it never reaches back up into core/host or the fleets.',
      from: { path: '^src/core/fixes/' },
      to: { path: '^src/core/(host|fleet)/' },
    },
    {
      name: 'core-below-adapters',
      severity: 'error',
      comment: 'src/core serves the CLI and the extension alike: it never imports an adapter or an entry point.',
      from: { path: '^src/core/' },
      to: { path: '^src/(vscode/|cli/|webview/|extension\\.ts$|cli\\.ts$)' },
    },
    {
      name: 'cli-apart-from-vscode',
      severity: 'error',
      comment: 'The CLI and the VS Code adapters are two front ends over the same core; what both need belongs in src/core.',
      from: { path: '^src/(cli/|cli\\.ts$)' },
      to: { path: '^src/(vscode/|extension\\.ts$)' },
    },
    {
      name: 'vscode-apart-from-cli',
      severity: 'error',
      comment: 'The CLI and the VS Code adapters are two front ends over the same core; what both need belongs in src/core.',
      from: { path: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '^src/(cli/|cli\\.ts$)' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules' },
  },
};
