// Builds three bundles: the extension (node, cjs, `vscode` external), the CLI (node, cjs),
// and the webview (browser, iife). `--production` minifies; `--watch` rebuilds on change.
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// Where the bundles go: dist/, or GDR_DIST_DIR (a test of the watch mode builds into a temp folder,
// so that stopping it never leaves a half-written dist/cli.js for the tests that run the CLI).
const dist = process.env.GDR_DIST_DIR || 'dist';

// ssh2's optional native parts stay out of the bundle: ssh2 falls back to its JavaScript
// ciphers when they are missing, and the .vsix must not carry any *.node file.
const nativeOptional = ['cpu-features', './crypto/build/Release/sshcrypto.node'];

/**
 * Prints errors in the `esbuild-problem-matcher` format that .vscode/tasks.json reads, and one
 * started/finished pair for the three bundles together: "finished" once none is still building, so
 * a debug session (or a test) that waits for it finds every bundle written.
 */
let building = 0;
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => {
      if (building++ === 0 && watch) console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (--building === 0 && watch) console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [problemMatcher],
};

const targets = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: `${dist}/extension.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', ...nativeOptional],
  },
  {
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: `${dist}/cli.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: nativeOptional,
  },
  {
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: `${dist}/webview.js`,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
];

async function main() {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
