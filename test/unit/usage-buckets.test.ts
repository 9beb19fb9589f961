import { bucketStart } from '../../src/services/usage';

describe('usage buckets', () => {
  test('calendar buckets in UTC; weeks start on Monday', () => {
    const t = Date.UTC(2024, 1, 29, 13, 45, 10); // Thursday 29 Feb 2024
    expect(bucketStart(t, 'HOUR')).toBe(Date.UTC(2024, 1, 29, 13));
    expect(bucketStart(t, 'DAY')).toBe(Date.UTC(2024, 1, 29));
    expect(bucketStart(t, 'WEEK')).toBe(Date.UTC(2024, 1, 26));
    expect(bucketStart(Date.UTC(2024, 2, 3, 23), 'WEEK')).toBe(Date.UTC(2024, 1, 26)); // a Sunday
    expect(bucketStart(t, 'MONTH')).toBe(Date.UTC(2024, 1, 1));
    expect(bucketStart(t, 'YEAR')).toBe(Date.UTC(2024, 0, 1));
  });
});
