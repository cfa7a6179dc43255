// Lint: typescript-eslint's type-checked recommended set over the TypeScript sources (each file is
// checked against the tsconfig.json nearest to it: the root one, or webview/tsconfig.json).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', '.bench/', 'test-results/', 'examples/', 'test/fixtures/', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    extends: [eslint.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // A require() inside a function is how the tokenizer's ranks load only on first use; import() would make every count async.
      '@typescript-eslint/no-require-imports': 'off',
      // tsc's noUnusedLocals and noUnusedParameters report these already (and allow `_`-named rest-sibling omits).
      '@typescript-eslint/no-unused-vars': 'off',
      // Functions implement async interfaces (loaders, fakes in tests) without awaiting anything themselves.
      '@typescript-eslint/require-await': 'off',
      // The terminal escaping and its tests match control characters on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Lit binds a template's `@event=${this.method}` listener to the host element.
    files: ['webview/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // Tests and benches read JSON they wrote (the CLI's report, harness answers) as untyped values on
    // purpose: the assertions are the type check.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
