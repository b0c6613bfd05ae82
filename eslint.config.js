// Lint: type-aware rules everywhere; on device code (src/) also the syntax
// and built-ins the Kaluma 1.2.1 engine lacks, so they fail before a build.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const deviceSyntax = [
  { selector: 'ChainExpression', message: 'Optional chaining (?.) is a SyntaxError on the device.' },
  { selector: 'PrivateIdentifier', message: '#private is absent on the device; use TypeScript private.' },
  { selector: 'StaticBlock', message: 'static {} blocks are absent on the device.' },
  { selector: "AssignmentExpression[operator='??=']", message: '??= is a SyntaxError on the device.' },
  { selector: "AssignmentExpression[operator='||=']", message: '||= is a SyntaxError on the device.' },
  { selector: "AssignmentExpression[operator='&&=']", message: '&&= is a SyntaxError on the device.' },
  { selector: 'Literal[regex.pattern=/\\(\\?</]', message: 'Regex named groups and lookbehind are absent on the device.' },
  { selector: 'ForOfStatement[await=true]', message: 'for await over arrays throws on the device.' },
];

const deviceProperties = [
  ['Promise', 'allSettled'], ['Promise', 'any'], ['Object', 'hasOwn'],
  ['console', 'warn'], ['console', 'info'], ['console', 'debug'], ['console', 'trace'],
].map(([object, property]) => ({ object, property, message: 'Missing on the Kaluma 1.2.1 engine.' }));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.data/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json', './tsconfig.host.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...deviceSyntax],
      'no-restricted-properties': ['error', ...deviceProperties],
      'no-restricted-globals': ['error', 'structuredClone', 'queueMicrotask', 'setImmediate', 'encodeURIComponent', 'decodeURIComponent', 'Buffer', 'fetch'],
      'no-console': 'error',
    },
  },
  { files: ['src/ports/kaluma/**/*.ts', 'src/main.ts'], rules: { 'no-console': 'off' } },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'host/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['*.js', '*.config.ts'], ...tseslint.configs.disableTypeChecked },
);
