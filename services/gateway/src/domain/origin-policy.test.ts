import { originAllowed } from './origin-policy';

describe('originAllowed', () => {
  const list = ['https://app.example.com', 'http://localhost:3000'];
  it('allows everything when the list is empty', () => {
    expect(originAllowed([], 'https://evil.example')).toBe(true);
  });
  it('allows an exact match', () => {
    expect(originAllowed(list, 'https://app.example.com')).toBe(true);
    expect(originAllowed(list, 'http://localhost:3000')).toBe(true);
  });
  it.each([
    'https://app.example.com.evil.com',
    'https://evil-app.example.com',
    'http://app.example.com',
    'https://APP.example.com',
    'https://app.example.com.',
    'https://app.example.com:8443',
    'https://app.example.com/',
    'null',
    'http://localhost:3001',
  ])('refuses %s', (o) => expect(originAllowed(list, o)).toBe(false));
  it('does not refuse a request without Origin (not a browser cross-origin call)', () => {
    expect(originAllowed(list, undefined)).toBe(true);
  });
});
