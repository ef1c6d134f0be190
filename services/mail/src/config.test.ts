import { randomBytes } from 'node:crypto';
import { generateAssertionKeyPair } from '@baas/common';
import { DEFAULT_CONSOLE_URL, loadMailConfig } from './config';

const base = {
  GATEWAY_ASSERTION_PUBLIC_KEY: generateAssertionKeyPair().publicKeyPem,
  DATABASE_URL: 'postgres://unused/baas_mail',
  MAIL_ENVELOPE_KEY: randomBytes(32).toString('hex'),
};

describe('CONSOLE_URL', () => {
  it('defaults to the gateway’s console on the gateway’s default port', () => {
    expect(DEFAULT_CONSOLE_URL).toBe('http://localhost:8080/console/');
    expect(loadMailConfig(base).CONSOLE_URL).toBe(DEFAULT_CONSOLE_URL);
  });

  it('takes an http(s) URL as given', () => {
    const url = 'https://baas.example.com/console/';
    expect(loadMailConfig({ ...base, CONSOLE_URL: url }).CONSOLE_URL).toBe(url);
  });

  it.each([
    ['another scheme', 'javascript:alert(1)'],
    ['a fragment (the console adds its own route)', 'https://baas.example.com/console/#/x'],
    ['no URL at all', 'console'],
  ])('refuses %s, naming the variable', (_what, value) => {
    expect(() => loadMailConfig({ ...base, CONSOLE_URL: value })).toThrow(/CONSOLE_URL/);
  });
});
