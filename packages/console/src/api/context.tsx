import { createContext, useContext } from 'react';
import type { Api } from './client';
import type { ConsoleSession } from '../auth/session';

export interface ConsoleContext {
  api: Api;
  session: ConsoleSession;
  signOut: () => void;
}

export const ApiContext = createContext<ConsoleContext | undefined>(undefined);

/** The signed-in session's API client (pages render only inside a session). */
export function useConsole(): ConsoleContext {
  const c = useContext(ApiContext);
  if (!c) throw new Error('useConsole outside a signed-in console');
  return c;
}

export function useApi(): Api {
  return useConsole().api;
}
