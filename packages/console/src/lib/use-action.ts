import { useCallback, useState } from 'react';

export interface Action {
  /** True while a run is under way. */
  busy: boolean;
  /** What the last run threw (as mapped), or what was set; cleared when a run starts. */
  error: unknown;
  setError: (error: unknown) => void;
  /**
   * Runs `work`: busy meanwhile, the error cleared first, then what it throws (through
   * `mapError`). Never rejects: true when `work` succeeded.
   */
  run: (work: () => Promise<unknown>, mapError?: (error: unknown) => unknown) => Promise<boolean>;
}

/** The state a run changes, as two setters (what `useAction` holds). */
export interface ActionState {
  setBusy: (busy: boolean) => void;
  setError: (error: unknown) => void;
}

/** A run of `work` over `state` (the part of `useAction` without React). */
export async function runAction(
  state: ActionState,
  work: () => Promise<unknown>,
  mapError: (error: unknown) => unknown = (error) => error,
): Promise<boolean> {
  state.setBusy(true);
  state.setError(undefined);
  try {
    await work();
    return true;
  } catch (error) {
    state.setError(mapError(error));
    return false;
  } finally {
    state.setBusy(false);
  }
}

/**
 * The busy flag and the error of a form's submit (or a confirmed action): `run` does the
 * bookkeeping; what is left to the caller is the work and what follows it.
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(
    (work: () => Promise<unknown>, mapError?: (error: unknown) => unknown) =>
      runAction({ setBusy, setError }, work, mapError),
    [],
  );
  return { busy, error, setError, run };
}
