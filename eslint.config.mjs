// Lint, including the dependency rules of ARCHITECTURE.md section 1: each package may import
// only the workspace packages the table allows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const workspace = ['native', 'core', 'launcher', 'adapter-tfjs', 'adapter-onnx', 'compat-horovod', 'compat-ddp', 'compat-kvstore'];
const frameworks = ['@tensorflow/*', 'onnxruntime-node', 'onnxruntime-common'];

/** Packages each workspace package may import (everything else in the workspace is banned). */
const allowed = {
  native: [],
  core: ['native'],
  launcher: ['core'],
  'adapter-tfjs': ['core'],
  'adapter-onnx': ['core'],
  'compat-horovod': ['core', 'adapter-tfjs', 'adapter-onnx'],
  'compat-kvstore': ['core', 'adapter-tfjs', 'adapter-onnx'],
  'compat-ddp': ['core', 'adapter-tfjs'],
};
const frameworkFree = new Set(['native', 'core', 'launcher']);

const boundaryRules = Object.entries(allowed).map(([pkg, ok]) => ({
  files: [`packages/${pkg}/src/**/*.ts`, `packages/${pkg}/lib/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: workspace.filter((p) => p !== pkg && !ok.includes(p)).flatMap((p) => [`@kolo/${p}`, `@kolo/${p}/*`]),
            message: `ARCHITECTURE.md section 1: @kolo/${pkg} may import only ${ok.length ? ok.map((p) => '@kolo/' + p).join(', ') : 'no workspace package'}.`,
          },
          ...(frameworkFree.has(pkg)
            ? [{ group: frameworks, message: `ARCHITECTURE.md section 1: @kolo/${pkg} is framework-neutral.` }]
            : []),
          { group: ['../../*/src/*', '../../../packages/*'], message: 'Import other packages by name, never by relative path.' },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/build/**', '**/node_modules/**', '**/*.d.ts', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', structuredClone: 'readonly' } },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
  },
  ...boundaryRules,
);
