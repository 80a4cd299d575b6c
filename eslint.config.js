import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'data/**', '**/dist/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // The demo's browser scripts: plain JavaScript on a page that loaded the library's global.
    files: ['packages/server/demo/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', history: 'readonly', latchkey: 'readonly' },
    },
  },
  {
    files: ['packages/server/bin/**', 'bench/**', 'scripts/**', 'packages/*/scripts/**', 'packages/server/src/cli.ts'],
    rules: { 'no-console': 'off' },
  },
);
