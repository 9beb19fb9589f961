/**
 * Answers of a pure function for recently asked keys: two generations of at most `limit` keys each; a key asked again
 * moves to the current one, the older generation is dropped whole when the current one fills. Cheaper per call than an
 * exact LRU (one or two Map lookups, no bookkeeping), which matters where it sits: on every value of every write.
 */
export class RecentAnswers<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(
    private readonly limit: number,
    /** Keys longer than this are answered without being remembered (a long description would hold memory for little). */
    private readonly maxKeyLength = Infinity,
  ) {}

  get(key: string, compute: (key: string) => V): V {
    let answer = this.current.get(key);
    if (answer !== undefined) return answer;
    if (key.length > this.maxKeyLength) return compute(key);
    answer = this.previous.get(key);
    if (answer === undefined) answer = compute(key);
    if (this.current.size >= this.limit) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, answer);
    return answer;
  }
}
