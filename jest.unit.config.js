/** Tier 1: pure logic, beside the code, no infrastructure (test/unit: the repository's own files). */
module.exports = {
  ...require('./jest.shared'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{packages,services}/*/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts'],
};
