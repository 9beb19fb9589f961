/**
 * Keys per generation of the service's memos (URN parsing, word splitting). Each remembered answer holds a few hundred
 * bytes of heap, and V8 lets the old generation grow to twice what survived its last collection (HEAP_GROWING_PERCENT):
 * at 20,000 the four memos held 25 MiB of the heap and batch ingestion of 10,000 datasets peaked at 320-330 MiB RSS, at
 * 5,000 at 278-283. What the smaller memos miss is mostly a dataset's own names met again a whole catalog later (an
 * ingest that writes every dataset's first aspect, then every second one): ~11 µs of CPU per aspect there
 * (bench/document-cost.ts), not measurable in bench/ingest.ts.
 */
export const RECENT_KEYS_PER_GENERATION = 5_000;

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
