import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { parseHashRoute, type HashRoute } from './lib/hash-route';

/**
 * A small client-side router over the History API: the console's paths live under its base
 * (`/console/`), and the gateway answers index.html for every one of them, so a link can be
 * opened, bookmarked or reloaded.
 */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

/** The app path of a location (`/projects/abc`), without the base. */
function appPath(): string {
  const p = window.location.pathname;
  const rest = p.startsWith(BASE) ? p.slice(BASE.length) : p;
  return rest === '' ? '/' : rest;
}

const listeners = new Set<() => void>();
function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}
const snapshot = (): string => window.location.pathname + window.location.search;

/** The current app path and query; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  useSyncExternalStore(subscribe, snapshot);
  return { path: appPath(), query: new URLSearchParams(window.location.search) };
}

export function href(to: string): string {
  return `${BASE}${to.startsWith('/') ? to : `/${to}`}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = href(to);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

/** Matches `/projects/:id/collections/:name` against a path; the decoded parameters, or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return undefined;
      }
    } else if (w !== g) return undefined;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** An anchor that navigates in place (a modified click still opens a new tab). */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={handle} {...rest} />;
}

/** Sets the document title and moves focus to the page heading after a navigation. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · BaaS console`;
    const h1 = document.querySelector<HTMLElement>('main h1');
    if (h1 && !h1.contains(document.activeElement)) h1.focus({ preventScroll: true });
  }, [title]);
}

/**
 * The pages a mail links to live in the fragment (`#/accept-invitation?token=…`,
 * `#/reset-password?token=…`): a fragment is never sent to a server, so the token stays out of
 * request lines, access logs and Referer headers. These pages stand apart from the signed-in
 * frame (they work signed out).
 */
const hashListeners = new Set<() => void>();
function subscribeHash(listener: () => void): () => void {
  hashListeners.add(listener);
  window.addEventListener('hashchange', listener);
  return () => {
    hashListeners.delete(listener);
    window.removeEventListener('hashchange', listener);
  };
}

export function useHashRoute(): HashRoute {
  const hash = useSyncExternalStore(subscribeHash, () => window.location.hash);
  return parseHashRoute(hash);
}

/** Leaves a fragment page (its token goes from the address bar and this entry of the history). */
export function leaveHashRoute(): void {
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  for (const l of hashListeners) l();
}
