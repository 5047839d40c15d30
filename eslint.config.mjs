// ESLint flat config for the whole repo: `npm run lint` (= `eslint .`), run by `npm run check`
// and .ci/run.
//
// typescript-eslint's type-aware rules are the point: the gateway holds money reservations
// across async settles, so a floating promise or a promise passed where a callback's result is
// ignored is a lost settle. The layering rules below are docs/architecture.md's "The dependency
// rule", checked at every import instead of only through the bundles of test/edge-neutral.test.ts.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const PACKAGES = ['policy', 'codecs', 'core', 'adapters-node', 'adapters-edge'];

// Test files (vitest) wherever they live; the package tsconfigs exclude these from the build.
const TESTS = ['packages/*/src/**/*.test.ts', 'packages/*/src/**/__tests__/**', 'test/**'];

// ---- The dependency rule ---------------------------------------------------------------------

// Node built-ins, bare (`fs`, `fs/promises`) and with the `node:` scheme.
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:'));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const NODE_BUILTIN_REGEX = `^(node:.*|(${NODE_BUILTINS.map(escape).join('|')})(/.*)?)$`;

/** The @tollgate packages each package may import (besides itself): only those below it. */
const MAY_IMPORT = {
  policy: [],
  codecs: [],
  core: ['codecs', 'policy'],
  'adapters-node': ['core', 'codecs', 'policy'],
  'adapters-edge': ['core', 'codecs', 'policy'],
};
// policy, codecs and core run on every runtime: no Node built-in. So does adapters-edge
// (test/edge-neutral.test.ts bundles it for a neutral platform too).
const EDGE_NEUTRAL = new Set(['policy', 'codecs', 'core', 'adapters-edge']);

// esquery (no-restricted-syntax selectors) takes no `/` inside a regex literal.
const selectorRegex = (regex) => regex.replaceAll('\\/', '/').replaceAll('/', '\\x2F');
const tollgateRegex = (pkg) => `^@tollgate/(?!(${[pkg, ...MAY_IMPORT[pkg]].map(escape).join('|')})(/|$))`;

// Explicit named exports only: the public surface is listed, not inherited.
const NO_EXPORT_ALL = {
  selector: 'ExportAllDeclaration',
  message: 'Export names explicitly (`export { a, b } from`), not `export *`: the public surface must be listed.',
};

// removed once the explicit-exports branch merges: the files that still hold `export *` lines
// (another branch is replacing them with explicit named exports). Every other rule applies.
const EXPORT_ALL_PENDING = [
  'packages/adapters-edge/src/index.ts',
  'packages/codecs/src/base.ts',
  'packages/codecs/src/index.ts',
  'packages/codecs/src/ir/index.ts',
  'packages/core/src/index.ts',
  'packages/core/src/minimal.ts',
  'packages/core/src/registry/index.ts',
];

/**
 * The layering rules of one package's files: its source (`kind: 'src'`), its tests
 * (`'tests'`) or its source files still waiting for explicit exports (`'export-all-pending'`).
 * Each file gets exactly one of these objects, because a later config object replaces a
 * rule's options instead of merging them.
 */
function layering(pkg, kind) {
  const edgeMessage = `@tollgate/${pkg} runs on edge runtimes: no Node built-in (use the Fetch API, Web Streams, Web Crypto).`;
  const may = MAY_IMPORT[pkg].map((p) => `@tollgate/${p}`).join(' and ');
  const upMessage = `The dependency rule (docs/architecture.md): @tollgate/${pkg} imports ${may ? `only ${may}` : 'no other @tollgate package'}.`;
  const patterns = [{ regex: tollgateRegex(pkg), message: upMessage }];
  // no-restricted-imports does not see dynamic `import()`: the same checks as selectors.
  const syntax = [{ selector: `ImportExpression[source.value=/${selectorRegex(tollgateRegex(pkg))}/]`, message: upMessage }];
  // Tests run under Node and may use it; the package's own source may not.
  if (EDGE_NEUTRAL.has(pkg) && kind !== 'tests') {
    patterns.push({ regex: NODE_BUILTIN_REGEX, message: edgeMessage });
    syntax.push({ selector: `ImportExpression[source.value=/${selectorRegex(NODE_BUILTIN_REGEX)}/]`, message: edgeMessage });
  }
  if (kind === 'src') syntax.push(NO_EXPORT_ALL);
  const pending = EXPORT_ALL_PENDING.filter((f) => f.startsWith(`packages/${pkg}/`));
  const files = {
    src: [`packages/${pkg}/src/**/*.ts`],
    tests: TESTS.filter((g) => g.startsWith('packages/')).map((g) => g.replace('packages/*', `packages/${pkg}`)),
    'export-all-pending': pending,
  }[kind];
  if (files.length === 0) return [];
  return [
    {
      name: `tollgate/layering/${pkg}/${kind}`,
      files,
      ...(kind === 'src' ? { ignores: [...TESTS, ...pending] } : {}),
      rules: {
        'no-restricted-imports': ['error', { patterns }],
        'no-restricted-syntax': ['error', ...syntax],
      },
    },
  ];
}

// ---- The config ------------------------------------------------------------------------------

export default defineConfig(
  {
    name: 'tollgate/ignores',
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.tsc/**',
      'coverage/**',
      // Generated by scripts/gen-schemas.ts from the schema.ts beside each (which is linted);
      // `npm run gen:schemas -- --check` keeps them in step.
      '**/runtime-schema.ts',
    ],
  },

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    name: 'tollgate/typescript',
    languageOptions: {
      parserOptions: {
        // The project service resolves @tollgate/* imports to their sources, as the editor
        // does, so lint needs no prior `tsc --build`. A test file the nearest package tsconfig
        // excludes is found in tsconfig.tests.json through the root solution tsconfig.json.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // Off: an `async` function without `await` still turns a throw into a rejection, which
      // callers of Promise-returning APIs here rely on; dropping `async` to please this rule
      // would change behaviour, and the promise rules below catch what matters.
      '@typescript-eslint/require-await': 'off',
      // Promises: a dropped one is a reservation never settled or an error never seen.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // A `let` read by a callback made before its one assignment (a socket's onread, a timer
      // a pump clears) cannot simply become `const` there.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A caught `unknown` passed on as it came (a stream's failure, a rejected store call, an
      // AbortSignal's `any` reason) keeps its identity; wrapping it would change what callers see.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },

  // Plain JavaScript (scripts, the CLI shim, test helpers): no tsconfig holds it.
  {
    name: 'tollgate/javascript',
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },

  // Tests: wire-format fixtures are loose JSON (`any` and the unsafe-* rules would only ask for
  // casts), and `expect(codec.decode)`-style method references are never called unbound. The
  // promise rules stay on (an un-awaited expectation is a test that cannot fail).
  {
    name: 'tollgate/tests',
    files: TESTS,
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  ...PACKAGES.flatMap((pkg) => ['src', 'tests', 'export-all-pending'].flatMap((kind) => layering(pkg, kind))),
);
