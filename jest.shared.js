/** Settings shared by the three test tiers (unit, integration, e2e). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: false }] },
  moduleNameMapper: {
    '^@baas/common$': '<rootDir>/packages/common/src/index.ts',
    '^@baas/common/(mongo|postgres)$': '<rootDir>/packages/common/src/$1/index.ts',
    '^@baas/common/telemetry$': '<rootDir>/packages/common/src/telemetry.ts',
    '^@baas/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    // ESM-style relative imports (`./http.js`, packages/sdk) resolve to the TypeScript source.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/', '<rootDir>/.stack/'],
  rootDir: __dirname,
};
