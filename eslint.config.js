// The one rule Biome cannot check: a Promise nobody awaits, handles or marks `void` (type-aware, so it sees
// through `store.write.*`, whose writes are Promises by the store's types; docs/store.md §One writer).
// Everything else is Biome's (biome.json); `npm run lint` runs both.
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['dist/**', 'node_modules/**', 'build/**', 'data/**'] },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'test/**/*.ts', 'bench/**/*.ts', 'hw/**/*.ts', 'image/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
];
