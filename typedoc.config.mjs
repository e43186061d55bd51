// The API reference (`npm run docs` → docs/api, not committed; test/packaging/api-docs.test.ts
// builds it on every `npm test`). One module per public package, from each package's entry
// points; any validation warning, an undocumented export above all, fails the build.
import { OptionDefaults } from 'typedoc';

const validation = { notExported: true, invalidLink: true, invalidPath: true, notDocumented: true, rewrittenLink: true, unusedMergeModuleWith: true };
// Every exported symbol and every method needs TSDoc. Properties are documented by convention
// (STYLE.md) but not enforced yet: some packages still have undocumented fields.
const requiredToBeDocumented = ['Enum', 'EnumMember', 'Variable', 'Function', 'Class', 'Interface', 'Method', 'Accessor', 'TypeAlias'];

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'Kolo API',
  entryPointStrategy: 'packages',
  entryPoints: [
    'packages/native',
    'packages/core',
    'packages/launcher',
    'packages/adapter-tfjs',
    'packages/adapter-onnx',
    'packages/compat-horovod',
    'packages/compat-ddp',
    'packages/compat-kvstore',
  ],
  out: 'docs/api',
  readme: 'none',
  // Options of each package's conversion.
  packageOptions: {
    excludePrivate: true,
    excludeInternal: true,
    // No public repository URL yet to link sources to.
    disableSources: true,
    // Closure Compiler's tag, which tfjs-style serializable classes carry on `className`.
    modifierTags: [...OptionDefaults.modifierTags, '@nocollapse'],
    validation,
    requiredToBeDocumented,
  },
  highlightLanguages: [...OptionDefaults.highlightLanguages, 'python'],
  validation,
  requiredToBeDocumented,
  treatValidationWarningsAsErrors: true,
};
