import { monthBucket, recipientHourBucket, secondsUntilNextMonth, systemDayBucket } from './buckets';

describe('usage buckets', () => {
  it('follow the UTC calendar', () => {
    const d = new Date('2025-01-31T23:59:59.000Z');
    expect(monthBucket(d)).toBe('month:2025-01');
    expect(monthBucket(new Date('2025-02-01T00:00:00.000Z'))).toBe('month:2025-02');
    expect(systemDayBucket(d)).toBe('system-day:2025-01-31');
    expect(secondsUntilNextMonth(d)).toBe(1);
  });

  it('never contain the address itself', () => {
    const b = recipientHourBucket(new Date('2025-01-01T10:00:00Z'), 'Alice@Example.com');
    expect(b).not.toContain('alice');
    expect(b).toBe(recipientHourBucket(new Date('2025-01-01T10:30:00Z'), 'alice@example.com'));
  });
});
