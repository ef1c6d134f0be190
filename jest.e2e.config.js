/** Tier 3: the whole system started by `npm run up`, reached only through the gateway. */
module.exports = {
  ...require('./jest.shared'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/e2e-global-setup.ts',
  // before each file: every process of the stack answers (a wedged one fails the file at once)
  setupFilesAfterEnv: ['<rootDir>/test/support/e2e-stack-check.ts'],
};
