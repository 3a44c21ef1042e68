import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeOnly = {
  patterns: [
    {
      group: ['node:*', 'fs', 'path', 'os', 'zlib', 'crypto', 'child_process', 'better-sqlite3'],
      message: 'This module must run in edge runtimes: no Node-only imports (see DESIGN.md).',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'build/',
      'node_modules/',
      'out/',
      'assembly/',
      'src/render/generated/',
      'coverage/',
      'reports/',
      '.stryker-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The renderer, the provider tables and the serverless handler import no Node-only module.
  {
    files: [
      'src/render/**',
      'src/providers/**',
      'src/views/**',
      'src/tokens/**',
      'src/serverless/**',
      'src/transcript/canonical.ts',
      'src/transcript/items.ts',
      'src/transcript/import/**',
      'src/compaction/**',
      'src/transcript/portable.ts',
      'src/transcript/validate.ts',
      'src/transcript/jsonl.ts',
      'src/transcript/readable.ts',
      'src/transcript/image-size.ts',
    ],
    rules: { 'no-restricted-imports': ['error', nodeOnly] },
  },
  {
    files: ['scripts/**/*.mjs', 'bench/**', 'test/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
