import { Transaction } from 'neo4j-driver';
import { commitWithoutStackCapture } from '../../src/stores/graph/neo4j-executor';

describe('driver commits without stack capture', () => {
  it('commits with stack traces off (the Result it builds captures none) and turns them back on after', () => {
    commitWithoutStackCapture();
    const before = Error.stackTraceLimit;
    let during: number | null = null;
    // The commit reads its state machine first; this one records the limit it runs under and fails there.
    const fake = { _state: { commit: () => { during = Error.stackTraceLimit; throw new Error('commit refused'); } } };
    expect(() => Transaction.prototype.commit.call(fake as unknown as Transaction)).toThrow('commit refused');
    expect(during).toBe(0);
    expect(Error.stackTraceLimit).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});
