import { mailKind } from './deliver';

describe('mailKind', () => {
  it('tells platform mails from API sends with a template or with direct content', () => {
    expect(mailKind({ system: true, templateKey: 'verify-email' })).toBe('system');
    expect(mailKind({ system: false, templateKey: 'welcome' })).toBe('template');
    expect(mailKind({ system: false })).toBe('direct');
  });
});
