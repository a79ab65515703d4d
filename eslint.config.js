// Lint rules for src/, test/ and bench/ (npm run lint; part of npm test). Formatting is prettier's.
// Type-aware (recommendedTypeChecked): the rules read types through TypeScript's project service,
// which makes lint about as costly as tsc; npm test runs it beside prettier and tsc (scripts/checks.js).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          // The browser page has its own tsconfig (DOM types); tsconfig.json leaves it out.
          allowDefaultProject: ['src/playground/page/app.ts'],
          defaultProject: 'tsconfig.page.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
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
    // Plain JavaScript: the worker thread and scripts/ (type-checked by tsc through // @ts-check) and
    // this file; not type-aware, as the worker thread is typed only by its JSDoc.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
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
