/** Tier 1: pure logic, beside the code, no infrastructure. */
module.exports = {
  ...require('./jest.shared'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{packages,services}/*/src/**/*.test.ts'],
};
