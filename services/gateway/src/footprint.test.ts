/**
 * The gateway routes without express (and serves /metrics with node:http): loading it must not
 * load express, which costs about 3.5 MB of heap in every replica (issue 14: idle RSS <= 80 MB),
 * nor the index of rate-limiter-flexible, which loads all of its limiters (about 0.8 MB).
 */
describe('gateway footprint', () => {
  it('loads neither express, a store driver nor every rate limiter', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      for (const name of ['express', 'mongodb', 'pg', 'node-pg-migrate', 'rate-limiter-flexible'])
        jest.doMock(name, () => {
          loaded.push(name);
          return {};
        });
      require('./app');
      require('./adapters/redis-rate-limiter');
      require('./adapters/auth-project-directory');
      require('./adapters/nats-invalidation');
      require('@baas/common');
      /* eslint-enable @typescript-eslint/no-require-imports */
    });
    expect(loaded).toEqual([]);
  });
});
