import { formatAuditActor, formatBytes, parseOrigins, percentOf } from './format';

describe('console formatting', () => {
  it('shows bytes in binary units', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(104857600)).toBe('100 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
  });

  it('gives a share of a limit, a zero limit full once used', () => {
    expect(percentOf(50, 200)).toBe(25);
    expect(percentOf(300, 200)).toBe(100);
    expect(percentOf(0, 0)).toBe(0);
    expect(percentOf(1, 0)).toBe(100);
  });

  it('reads origins one per line or comma-separated', () => {
    expect(parseOrigins(' https://a.example\n\nhttps://b.example, http://localhost:3000 ')).toEqual([
      'https://a.example',
      'https://b.example',
      'http://localhost:3000',
    ]);
  });

  it("names an audit entry's actor: account email, admin token, end user, anonymous", () => {
    expect(formatAuditActor({ type: 'console-account', id: 'a1', email: 'ops@example.com' })).toBe(
      'ops@example.com',
    );
    expect(formatAuditActor({ type: 'platform-admin' })).toBe('platform admin token');
    expect(formatAuditActor({ type: 'end-user', id: '665f1c2ab4d3e2f1a0b9c8f0' })).toBe(
      'user 665f1c2ab4d3e2f1a0b9c8f0',
    );
    expect(formatAuditActor({ type: 'anonymous' })).toBe('anonymous');
  });
});
