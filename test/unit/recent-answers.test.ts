import { RecentAnswers } from '../../src/model/recent-answers';

describe('RecentAnswers', () => {
  it('computes a key once while it stays recent, and again after two generations without it', () => {
    const calls: string[] = [];
    const answers = new RecentAnswers<string>(2);
    const ask = (k: string) => answers.get(k, (key) => (calls.push(key), key.toUpperCase()));
    expect([ask('a'), ask('a'), ask('b')]).toEqual(['A', 'A', 'B']);
    expect(calls).toEqual(['a', 'b']);
    ask('c'); // current full: {a, b} becomes the previous generation
    ask('a'); // found in the previous generation, moved back to the current one
    expect(calls).toEqual(['a', 'b', 'c']);
    ask('d'); // current {c, a} full: previous {c, a}; b is gone
    ask('b');
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'b']);
  });

  it('does not remember keys over the length bound', () => {
    let calls = 0;
    const answers = new RecentAnswers<number>(10, 3);
    answers.get('long key', () => ++calls);
    answers.get('long key', () => ++calls);
    expect(calls).toBe(2);
  });
});
