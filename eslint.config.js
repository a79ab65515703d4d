// Lint rules for src/, test/ and bench/ (npm run lint; part of npm test). Formatting is prettier's.
// Not type-aware: the type-checked rule set took 30 s on this tree (tsc already checks types in
// npm test); these run in a few seconds.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The project's rule: no `any`, anywhere.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Plain JavaScript: the worker thread (type-checked by tsc through // @ts-check) and this file.
    files: ['**/*.js'],
    languageOptions: {
      globals: {
        performance: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
);
