import { parseHashRoute } from './hash-route';

describe('fragment pages', () => {
  it('names the page and reads its query', () => {
    const r = parseHashRoute('#/accept-invitation?token=abc_DEF-123');
    expect(r.name).toBe('accept-invitation');
    expect(r.query.get('token')).toBe('abc_DEF-123');
    expect(parseHashRoute('#/reset-password').name).toBe('reset-password');
    expect(parseHashRoute('#/reset-password').query.get('token')).toBeNull();
  });

  it('is no page for an empty fragment, a plain anchor or anything else', () => {
    for (const hash of ['', '#', '#main', '#/', '#/Accept?x', 'accept-invitation'])
      expect(parseHashRoute(hash).name).toBe('');
  });
});
