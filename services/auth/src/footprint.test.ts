/**
 * The login throttle takes its limiters from `@baas/common/rate-limiter`: the index of
 * rate-limiter-flexible loads all of its limiters (about 0.8 MB of heap; issue 14: idle RSS <= 80 MB).
 */
describe('auth footprint', () => {
  it('the login throttle does not load the index of rate-limiter-flexible', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      jest.doMock('rate-limiter-flexible', () => {
        loaded.push('rate-limiter-flexible');
        return {};
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('./adapters/redis-login-throttle');
    });
    expect(loaded).toEqual([]);
  });
});
