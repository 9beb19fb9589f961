import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `npm run bench -- <name> [flags]` runs bench/<name>.ts with its flags, e.g. `npm run bench -- ingest --datasets 10000`. */
const [name, ...flags] = process.argv.slice(2);
const file = name ? join(__dirname, `${name}.ts`) : '';
if (!name || ['run', 'lib', 'oncpu', 'catalog-data'].includes(name) || !existsSync(file)) {
  console.error('usage: npm run bench -- <ingest|write-statements|read|search|lineage|load|restore|tx-cost|fuzz> [flags]');
  process.exit(2);
}
process.argv = [process.argv[0], file, ...flags];
require(file);
