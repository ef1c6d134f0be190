import { runAction } from './use-action';

/** Setters that record what they were given, in order, and the state they leave. */
function recorder() {
  const calls: Array<['busy', boolean] | ['error', unknown]> = [];
  const state = { busy: false, error: undefined as unknown };
  return {
    calls,
    state,
    setters: {
      setBusy: (busy: boolean) => {
        state.busy = busy;
        calls.push(['busy', busy]);
      },
      setError: (error: unknown) => {
        state.error = error;
        calls.push(['error', error]);
      },
    },
  };
}

describe('runAction', () => {
  it('is busy while the work runs, with the previous error cleared first', async () => {
    const r = recorder();
    r.state.error = new Error('before');
    let during: { busy: boolean; error: unknown } | undefined;
    const done = await runAction(r.setters, async () => {
      during = { ...r.state };
    });
    expect(done).toBe(true);
    expect(during).toEqual({ busy: true, error: undefined });
    expect(r.calls).toEqual([
      ['busy', true],
      ['error', undefined],
      ['busy', false],
    ]);
  });

  it('records what the work throws, then is no longer busy', async () => {
    const r = recorder();
    const refusal = new Error('refused');
    const done = await runAction(r.setters, async () => {
      await Promise.resolve();
      throw refusal;
    });
    expect(done).toBe(false);
    expect(r.calls).toEqual([
      ['busy', true],
      ['error', undefined],
      ['error', refusal],
      ['busy', false],
    ]);
    expect(r.state).toEqual({ busy: false, error: refusal });
  });

  it('records a throw that comes before the work returns a promise', async () => {
    const r = recorder();
    const refusal = new Error('at once');
    const done = await runAction(r.setters, () => {
      throw refusal;
    });
    expect(done).toBe(false);
    expect(r.state).toEqual({ busy: false, error: refusal });
  });

  it('records the error through mapError when given', async () => {
    const r = recorder();
    const done = await runAction(
      r.setters,
      () => Promise.reject(new Error('401')),
      (e) => (e instanceof Error && e.message === '401' ? new Error('Wrong email or password.') : e),
    );
    expect(done).toBe(false);
    expect(r.state.error).toEqual(new Error('Wrong email or password.'));
    expect(r.state.busy).toBe(false);
  });
});
