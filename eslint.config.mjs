// Type-aware lint: floating promises, misused promises and non-exhaustive switches are errors.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.stack/**',
      '**/*.js',
      '**/*.mjs',
      // generated from services/gateway/openapi.json (packages/console/scripts/api-types.mjs)
      'packages/console/src/api/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The console: a browser app (React, DOM types, bundler resolution), its own tsconfig.
    files: ['packages/console/**/*.ts', 'packages/console/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: './packages/console/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The Rules of React and of hooks (the React Compiler's checks included), as errors.
    ...reactHooks.configs.flat.recommended,
    files: ['packages/console/**/*.ts', 'packages/console/**/*.tsx'],
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts', 'test/support/**/*.ts'],
    // Tests read JSON bodies of unknown shape and use small async fakes.
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
