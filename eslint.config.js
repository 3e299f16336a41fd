// Lint rules that keep the layout of the architecture: imports point one way between src/ folders.
import tseslint from 'typescript-eslint';

const layers = {
  core: [],
  dtl: ['core'],
  rules: ['core', 'dtl'],
  store: ['core'],
  bridge: ['core'],
  engine: ['core', 'dtl', 'rules', 'store', 'bridge'],
  api: ['core', 'engine', 'dtl', 'rules', 'store'],
  client: ['core'],
  cli: ['core', 'client'],
  server: ['core', 'dtl', 'rules', 'store', 'bridge', 'engine', 'api', 'client', 'cli'],
};

const layerRules = Object.entries(layers).map(([layer, allowed]) => ({
  files: [`src/${layer}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: Object.keys(layers)
          .filter((other) => other !== layer && !allowed.includes(other))
          .map((other) => ({ group: [`**/${other}/*`, `../${other}/*`], message: `src/${layer} may not import src/${other}` })),
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/dist/**', 'python/**'] },
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: each file is checked with the types of its own tsconfig (web/src has its own).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection; fire-and-forget must say so with `void` or handle it with `.catch`.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a void callback is expected (event handlers, forEach, timers) drops its rejection.
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union must name every member, so adding a member makes the compiler point at each switch.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Import cycles are caught by test/architecture/import-graph.test.ts.
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/dtl/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'src/dtl stays free of node: imports (the portal uses it)' }] }] },
  },
  {
    files: ['src/rules/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'src/rules stays free of node: imports (the portal uses it)' }] }] },
  },
  ...layerRules,
);
