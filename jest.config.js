/** Two projects: pure-logic unit tests, and integration tests against the real local stack. */
const transform = { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] };
// jose ships ES modules only; jest loads CommonJS, so it is compiled like our own code.
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];
module.exports = {
  testTimeout: 120000,
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, transformIgnorePatterns, testEnvironment: 'node' },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
