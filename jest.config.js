/**
 * `npm test`: the three tiers in one run, so one summary covers everything.
 * Unit (no infrastructure), integration (real servers), e2e (the whole system via the gateway).
 */
module.exports = {
  projects: [
    '<rootDir>/jest.unit.config.js',
    '<rootDir>/jest.integration.config.js',
    '<rootDir>/jest.e2e.config.js',
  ],
  // Clients of real servers (NATS status loops, pools) must not keep a CI run alive.
  forceExit: true,
  // A global option: the tiers' own testTimeout is ignored when they run as projects.
  testTimeout: 60000,
  // In CI, a file still running after minutes is named while it runs (test/support/slow-file-reporter.js).
  reporters: ['default', ...(process.env.CI ? ['<rootDir>/test/support/slow-file-reporter.js'] : [])],
};
