// The workspace's ESLint rules. The root eslint.config.js re-exports this so that
// typescript-eslint (and the TypeScript 6 API it needs) resolve from this package.
import { fileURLToPath } from 'node:url';

import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.evalbook/**', 'fixtures/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      // One TypeScript program over every file (tsconfig.lint.json, package names mapped to their
      // sources), not a program per tsconfig: the project service built 22, each loading the sources
      // of the packages it references again — a quarter of a cold lint's CPU (docs/benchmarks.md).
      parserOptions: {
        project: './tools/lint/tsconfig.lint.json',
        tsconfigRootDir: fileURLToPath(new URL('../../', import.meta.url)),
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `const { dropped, ...kept } = value` is how a copy leaves fields out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // No import cycle between the files of a package, and the evalbook's folders point down:
    // report/ → analysis/ → ledger/. (no-cycle follows value imports only; scripts/import-cycles.test.ts
    // checks the same graph with its type imports too.) `./x.js` specifiers name `x.ts` sources.
    files: ['packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
      // Which files no-cycle reads the imports of, and with what parser (its default is .js only).
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: 'packages/evalbook/src/ledger',
              from: ['packages/evalbook/src/analysis', 'packages/evalbook/src/report'],
              message: 'ledger/ imports neither analysis/ nor report/ (the folders point down).',
            },
            {
              target: 'packages/evalbook/src/analysis',
              from: 'packages/evalbook/src/report',
              message: 'analysis/ does not import report/ (the folders point down).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests (and the test kit) index into fixtures they built a line earlier; `!` there says "this exists", not a guess.
    files: ['**/test/**/*.ts', '**/*.test.ts', 'packages/test-kit/src/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The HTML report's script runs in the page (render-html.ts inlines it), not in Node.
    files: ['packages/evalbook/src/report/html/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        Node: 'readonly',
        window: 'readonly',
        location: 'readonly',
        history: 'readonly',
        CSS: 'readonly',
      },
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
  },
);
