// ESLint (`npm run lint`, part of `npm test`): typescript-eslint's strict type-checked rules
// and an import-cycle check, over every TypeScript file tsconfig.json compiles.
//
// strictTypeChecked rather than recommendedTypeChecked: the code is already strict
// TypeScript (noUncheckedIndexedAccess, exact catch typing), and what the strict set adds
// found real things here that the compiler does not: conditions that cannot be false, type
// assertions that assert nothing, async functions that never wait, a value thrown that is
// not an Error. Where a strict rule's default flags correct code, it is narrowed below, each
// with its reason.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    files: ['{src,harness,bench,demo,test}/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle follows only files of these extensions, parsed by this parser: without
      // them it sees no .ts file and reports no cycle at all.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Resolves the `./x.js` specifiers of NodeNext ESM to the `./x.ts` files they name.
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      // Numbers in messages (counts, sizes, durations) print as they should: the strict
      // default's String(n) around each would be noise. Nullish, boolean, any and never
      // stay errors: they print as "undefined", "null", "true" or "[object Object]".
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowAny: false, allowBoolean: false, allowNever: false, allowNullish: false, allowRegExp: false },
      ],
      // node:test's test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      // `(code) => resolve(code)`, `() => clearTimeout(timer)`: a callback that only makes
      // one call reads best without braces; a void value anywhere else is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A value caught, whose type is unknown, passed on as it is (kube/http.ts's drain); a
      // literal or an object that is not an Error is still an error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `const { retainFor: _unused, ...rest } = config` is how an object is copied without a key.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Off: it takes a parameter made optional by a default in the method implemented
      // (KubeCluster.deleteTarget's `attempt = 1`) for a required one, and calls the fake's
      // `attempt = 1` useless, although tsc rejects the fake without it.
      '@typescript-eslint/no-useless-default-assignment': 'off',
    },
  },
  {
    // @kubernetes/client-node's generated models (V1ObjectMeta, V1Pod, ...) are declared as
    // classes but hold nothing beyond their JSON fields: the library serializes by the type
    // named in each call, and its own examples pass object literals. The harness, the tests
    // and the demo's seeding build and copy them that way; src/ does not use them.
    files: ['{harness,demo,test}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
  {
    // A test's types say what the code under test should deliver, and the test is there to
    // find out: `controlPlane?.stop()` in after() runs also when before() failed, and
    // `item?.reason` on a report item the pass may not have produced fails as an assertion
    // rather than a TypeError. Outside test/, the rule stands.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    // Control characters on purpose: escape.ts finds them to escape them; tests read the
    // escape sequences a terminal gets.
    files: ['src/text/escape.ts', 'test/**/*.ts'],
    rules: {
      'no-control-regex': 'off',
    },
  },
);
