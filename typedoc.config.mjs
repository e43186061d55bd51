// The API reference: `npm run docs` writes docs/api (generated, not committed);
// test/packaging/api-docs.test.ts converts and validates it without the HTML on every `npm test`.
// One module per public package, from each package's entry points; any validation warning, an
// undocumented export above all, fails the build.
import { OptionDefaults } from 'typedoc';

const validation = { notExported: true, invalidLink: true, invalidPath: true, notDocumented: true, rewrittenLink: true, unusedMergeModuleWith: true };
// Every exported symbol, method and property needs TSDoc (STYLE.md).
const requiredToBeDocumented = ['Enum', 'EnumMember', 'Variable', 'Function', 'Class', 'Interface', 'Method', 'Accessor', 'TypeAlias', 'Property'];

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
