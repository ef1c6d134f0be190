import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

interface Settled<T> {
  /** The inputs (deps and reload count) the answer is for. */
  asked: readonly unknown[] | undefined;
  data: T | undefined;
  error: unknown;
}

const same = (a: readonly unknown[] | undefined, b: readonly unknown[]) =>
  a !== undefined && a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/**
 * Runs `load` when `deps` change (and on reload). It is loading while the last answer is for
 * other inputs; an answer that arrives after newer inputs is dropped. The previous data stays
 * shown while the next loads.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [settled, setSettled] = useState<Settled<T>>({ asked: undefined, data: undefined, error: undefined });
  const [tick, setTick] = useState(0);
  const asked = [...deps, tick];
  useEffect(() => {
    let current = true;
    load().then(
      (data) => {
        if (current) setSettled({ asked, data, error: undefined });
      },
      (error: unknown) => {
        if (current) setSettled((s) => ({ asked, data: s.data, error }));
      },
    );
    return () => {
      current = false;
    };
    // The caller's deps (and the reload count) decide when to load: `load` is a new closure
    // on every render, and `asked` is made of exactly these.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, asked);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: settled.data, error: settled.error, loading: !same(settled.asked, asked), reload };
}
