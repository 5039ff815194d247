// Lint rules, including the architecture rule: src/core and src/webview never import `vscode`.
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'vscode', message: 'src/core and src/webview must not depend on VS Code: keep them pure and testable.' }],
    },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
      message: 'src/core and src/webview must not depend on VS Code.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '.cache/**', 'esbuild.js', 'test/reporter.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always'],
    },
  },
  { files: ['src/core/**/*.ts', 'src/webview/**/*.ts', 'src/protocol/**/*.ts'], rules: noVscode },
);
