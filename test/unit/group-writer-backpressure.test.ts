import { OverloadedError } from '../../src/model/errors';
import { GroupWriter, type CommitGroup } from '../../src/services/write-path/group-writer';
import type { WriteItem } from '../../src/services/write-path/plan';
import type { Backpressure } from '../../src/services/write-path/publish';

const write = (i: number): WriteItem => ({ kind: 'deleteAspect', urn: `urn:li:tag:t${i}`, entityType: 'tag', name: 'tagProperties' });

/** A backpressure the test holds and releases. */
class Gate implements Backpressure {
  holding = false;
  private waiters: (() => void)[] = [];
  holds(): boolean {
    return this.holding;
  }
  released(): Promise<void> {
    return this.holding ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }
  release(): void {
    this.holding = false;
    for (const go of this.waiters.splice(0)) go();
  }
}

/** Records each group it is given and answers every write at once. */
function recordingCommit(groups: number[][]): CommitGroup {
  return async (units, _now, _timeout, released) => {
    groups.push(units.map((u) => u.length));
    released();
    return units.map((u) => u.map(() => ({ kind: 'written' }) as never));
  };
}

const options = { windowMs: 0, maxGroupWrites: 100, concurrency: 2, maxQueuedWrites: 1000, timeoutMs: 5000 };
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the group stage under backpressure from the indexer', () => {
  it('starts no group while held, then the waiting writes as one group once released', async () => {
    const groups: number[][] = [];
    const gate = new Gate();
    const writer = new GroupWriter(recordingCommit(groups), options, undefined, gate);
    gate.holding = true;
    const answers = [1, 2, 3].map((i) => writer.submit([write(i)]));
    await tick();
    expect(groups).toEqual([]);
    gate.release();
    await Promise.all(answers);
    expect(groups).toEqual([[1, 1, 1]]);
  });

  it('writes at once while not held', async () => {
    const groups: number[][] = [];
    const writer = new GroupWriter(recordingCommit(groups), options, undefined, new Gate());
    await writer.submit([write(1)]);
    expect(groups).toEqual([[1]]);
  });

  it('answers a write held past half its deadline with 503 and Retry-After, unapplied', async () => {
    const groups: number[][] = [];
    const gate = new Gate();
    const writer = new GroupWriter(recordingCommit(groups), { ...options, timeoutMs: 60 }, undefined, gate);
    gate.holding = true;
    const answer = writer.submit([write(1)]).catch((err) => err);
    await tick();
    await tick();
    gate.release();
    const err = await answer;
    expect(err).toBeInstanceOf(OverloadedError);
    expect((err as OverloadedError).status).toBe(503);
    expect((err as OverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(groups).toEqual([]);
  });

  it('answers a held write at its deadline, while the hold still lasts', async () => {
    const groups: number[][] = [];
    const gate = new Gate();
    const writer = new GroupWriter(recordingCommit(groups), { ...options, timeoutMs: 60 }, undefined, gate);
    gate.holding = true;
    const started = Date.now();
    const err = await writer.submit([write(1)]).catch((e) => e);
    expect(err).toBeInstanceOf(OverloadedError);
    expect((err as OverloadedError).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1000);
    // A write that comes after is held, then goes once released.
    const later = writer.submit([write(2)]);
    gate.release();
    await later;
    expect(groups).toEqual([[1]]);
  });

  it('drains the queue on close even while held', async () => {
    const groups: number[][] = [];
    const gate = new Gate();
    const writer = new GroupWriter(recordingCommit(groups), options, undefined, gate);
    gate.holding = true;
    const answer = writer.submit([write(1)]);
    await writer.close();
    await answer;
    expect(groups).toEqual([[1]]);
  });
});
