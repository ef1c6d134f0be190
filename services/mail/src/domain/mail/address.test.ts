import { isValidAddress, parseRecipient } from './address';

describe('recipient address', () => {
  it.each(['a@example.com', 'first.last+tag@sub.example.co', "o'brien@example.org"])(
    'accepts the plain address %s',
    (a) => {
      expect(isValidAddress(a)).toBe(true);
    },
  );

  it.each([
    'Alice <a@example.com>',
    '"x" <a@example.com>',
    'a@example.com, b@example.com',
    'a@example.com;b@example.com',
    'a@example.com\r\nBcc: victim@example.com',
    'a@example.com\nBcc: v@example.com',
    'a@example.com\u2028',
    'a b@example.com',
    'a@example',
    '@example.com',
    'a@@example.com',
    'a..b@example.com',
    'a@-example.com',
    'a(comment)@example.com',
    `${'x'.repeat(65)}@example.com`,
  ])('refuses %j', (a) => {
    expect(isValidAddress(a)).toBe(false);
  });

  it('refuses an array or a non-string with 400', () => {
    expect(() => parseRecipient(['a@example.com'])).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parseRecipient({ address: 'a@example.com' })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(() => parseRecipient(undefined)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
