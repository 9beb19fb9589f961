import { aspect, PHASES, urnOf } from './catalog-data';
import { backends, flag, http, memoryOf, runLoad, startServiceProcess } from './lib';

/**
 * The service's memory under reads of a whole catalog: --datasets datasets of scenario a's five aspects are written in
 * batches, then every dataset is read --passes times through entitiesV2 by --clients clients (each pass in a new random
 * order), filling the read cache (READ_CACHE_SIZE) and cycling through it. Prints the service's RSS after the writes
 * and its current (rssMb) and peak (hwmMb) RSS after each pass, beside the read throughput.
 *   npx tsx bench/read-memory.ts [--datasets 10000] [--passes 3] [--clients 8]
 */
const datasets = flag('datasets', 10000);
const passes = flag('passes', 3);
const clients = flag('clients', 8);

function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let s = seed;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function main(): Promise<void> {
  const b = await backends();
  const service = await startServiceProcess(b);
  const pid = service.child.pid!;
  const prefix = `readmem${Date.now()}`;
  try {
    const batches = Math.ceil((datasets * PHASES.length) / 100);
    await runLoad(4, batches, async (r) => {
      const proposals = Array.from({ length: 100 }, (_, k) => r * 100 + k)
        .filter((n) => n < datasets * PHASES.length)
        .map((n) => aspect(prefix, n % datasets, Math.floor(n / datasets), false))
        .map((a) => ({ entityType: 'dataset', entityUrn: a.urn, changeType: 'UPSERT', aspectName: a.name, aspect: { value: JSON.stringify(a.value), contentType: 'application/json' } }));
      return (await http(`${service.url}/aspects?action=ingestProposalBatch`, { json: { proposals } })).ok;
    });
    console.log(JSON.stringify({ datasets, afterWrites: memoryOf(pid) }));
    for (let pass = 1; pass <= passes; pass++) {
      const order = shuffled(datasets, pass);
      let bytes = 0;
      const result = await runLoad(clients, datasets, async (n) => {
        const res = await http(`${service.url}/entitiesV2/${encodeURIComponent(urnOf(prefix, order[n]))}`);
        bytes += res.text.length;
        return res.ok;
      });
      console.log(JSON.stringify({ pass, readsPerSecond: Math.round(result.perSecond), errors: result.errors, answerKbAvg: Math.round(bytes / datasets / 1024), ...memoryOf(pid) }));
    }
  } finally {
    await service.stop();
    await b.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
