import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { csrfTokenFor } from '@baas/common';
import {
  consoleSessionToken,
  csrfTokenValid,
  needsCsrfToken,
  originIsOwn,
  withoutConsoleCookie,
} from './console-cookie';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
const token = () => randomBytes(32).toString('base64url');

describe('the console session cookie', () => {
  it('is read from among other cookies, quoted or not', () => {
    const t = token();
    expect(consoleSessionToken(req({ cookie: `baas_console=${t}` }))).toBe(t);
    expect(consoleSessionToken(req({ cookie: `a=1; baas_console=${t}; refreshToken=x` }))).toBe(t);
    expect(consoleSessionToken(req({ cookie: `baas_console="${t}"` }))).toBe(t);
  });

  it('is no session when absent, empty or not shaped like a token', () => {
    for (const cookie of [
      '',
      'a=1',
      'baas_console=',
      'baas_console=short',
      `baas_console=${'x'.repeat(300)}`,
      'baas_console=has space; b=1',
      'baas_consolex=abcdefghijklmnopqrstuvwxyz',
      `xbaas_console=${token()}`,
    ])
      expect(consoleSessionToken(req({ cookie }))).toBeUndefined();
    expect(consoleSessionToken(req({}))).toBeUndefined();
  });

  it('is taken out of what reaches other services, other cookies kept', () => {
    expect(withoutConsoleCookie(`a=1; baas_console=${token()}; refreshToken=x`)).toBe('a=1; refreshToken=x');
    expect(withoutConsoleCookie(`baas_console=${token()}`)).toBeUndefined();
    expect(withoutConsoleCookie('a=1')).toBe('a=1');
  });
});

describe('the CSRF token', () => {
  it("is the session's derived token (csrfTokenFor), and no other", () => {
    const t = token();
    expect(csrfTokenValid(req({ 'x-csrf-token': csrfTokenFor(t) }), t)).toBe(true);
    expect(csrfTokenValid(req({}), t)).toBe(false);
    expect(csrfTokenValid(req({ 'x-csrf-token': '' }), t)).toBe(false);
    expect(csrfTokenValid(req({ 'x-csrf-token': t }), t)).toBe(false);
    expect(csrfTokenValid(req({ 'x-csrf-token': csrfTokenFor(token()) }), t)).toBe(false);
    expect(csrfTokenValid(req({ 'x-csrf-token': csrfTokenFor(t).slice(1) }), t)).toBe(false);
  });

  it('is derived, stable and unguessable from another session', () => {
    const t = token();
    expect(csrfTokenFor(t)).toBe(csrfTokenFor(t));
    expect(csrfTokenFor(t)).not.toBe(csrfTokenFor(token()));
    expect(csrfTokenFor(t)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenFor(t)).not.toContain(t);
  });

  it('is needed by every method but the safe ones', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'get'].map(needsCsrfToken)).toEqual([false, false, false, false]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'post'].map(needsCsrfToken)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});

describe('the Origin check', () => {
  it.each([
    [{ host: 'localhost:8080' }],
    [{ host: 'localhost:8080', origin: 'http://localhost:8080' }],
    [{ host: 'console.example.com', origin: 'https://console.example.com' }],
    [{ host: 'console.example.com:443', origin: 'https://console.example.com' }],
    [{ host: 'Console.Example.com', origin: 'https://console.example.com' }],
    [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }],
  ])('takes %j', (headers) => expect(originIsOwn(req(headers))).toBe(true));

  it.each([
    [{ host: 'localhost:8080', origin: 'http://evil.example' }],
    [{ host: 'localhost:8080', origin: 'http://localhost:8081' }],
    [{ host: 'localhost:8080', origin: 'null' }],
    [{ host: 'localhost:8080', origin: '' }],
    [{ host: 'localhost:8080', origin: 'http://evil.example@localhost:8080' }],
    [{ host: 'localhost:8080', origin: 'http://localhost:8080/path' }],
    [{ host: 'localhost:8080', origin: 'file://localhost:8080' }],
    [{ host: 'console.example.com', origin: 'https://console.example.com.evil.example' }],
    [{ origin: 'http://localhost:8080' }],
  ])('refuses %j', (headers) => expect(originIsOwn(req(headers))).toBe(false));
});
