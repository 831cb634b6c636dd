// One lint setup for the whole workspace: typescript-eslint's type-aware recommended rules, no
// import cycles (within a package or across packages), with formatting left to prettier.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'eslint.config.js',
      '**/node_modules/**',
      '**/dist/**',
      'protos/generated/**',
      'services/*/src/generated/**',
      'gateway/web/generated/**',
      'gateway/web/src/generated/**',
      '**/*.cjs',
      'k8s/**',
      'deploy/**/*.yaml',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      // Resolves `./x.js` to x.ts and `@tix/*` to the workspace packages, as TypeScript does.
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          noWarnOnMultipleProjects: true,
          project: [
            '*/tsconfig.json',
            'services/*/tsconfig.json',
            'services/lib/*/tsconfig.json',
            'gateway/web/tsconfig.json',
          ],
        }),
      ],
    },
    rules: {
      // A cycle means two modules each need the other: the shared piece belongs in a third. The rule
      // follows value imports; a cycle made only of `import type` is not reported.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['**/test/**/*.ts', 'tests/**/*.ts'],
    rules: {
      // chai's expect(...).to.be.true style reads as an unused expression
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  prettier,
);
