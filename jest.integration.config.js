/** Tier 2: one service at a time against the real MongoDB-compatible server, Redis, NATS, S3, SMTP. */
module.exports = {
  ...require('./jest.shared'),
  displayName: 'integration',
  testMatch: ['<rootDir>/{packages,services}/*/test/integration/**/*.test.ts'],
};
