/** Scenario a's catalog data (bench/ingest.ts, bench/write-statements.ts): N datasets x 5 aspects of realistic size and skew. */

export const PHASES = ['datasetProperties', 'schemaMetadata', 'ownership', 'globalTags', 'upstreamLineage'] as const;

/** A deterministic Zipf-like pick in [0, n): low numbers are common. */
export function skewed(i: number, n: number, salt: number): number {
  const x = ((Math.imul(i + 1, 2654435761) ^ salt) >>> 0) / 2 ** 32;
  return Math.min(n - 1, Math.floor(n * x ** 3));
}

export const urnOf = (prefix: string, i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}.db_${i % 50}.table_${i},PROD)`;

export function aspect(prefix: string, i: number, phase: number, hot: boolean): { urn: string; name: string; value: Record<string, unknown> } {
  const urn = urnOf(prefix, i);
  const name = PHASES[phase];
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:bench' };
  switch (name) {
    case 'datasetProperties':
      return {
        urn,
        name,
        value: {
          name: `table_${i}`,
          qualifiedName: `${prefix}.db_${i % 50}.table_${i}`,
          description: `Benchmark table ${i} of ${prefix}: ${'orders customers payments events sessions '.repeat(1 + (i % 6))}`.trim(),
          customProperties: { team: `team_${i % 7}`, retention: `${(i % 12) + 1}m`, format: i % 2 ? 'parquet' : 'orc' },
        },
      };
    case 'schemaMetadata': {
      const fields = 5 + skewed(i, 76, 7);
      return {
        urn,
        name,
        value: {
          schemaName: `table_${i}`,
          platform: 'urn:li:dataPlatform:hive',
          version: 0,
          hash: '',
          platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
          fields: Array.from({ length: fields }, (_, f) => ({
            fieldPath: `col_${f}_${['id', 'name', 'amount', 'created_at', 'status'][f % 5]}`,
            nativeDataType: ['bigint', 'varchar(255)', 'decimal(12,2)', 'timestamp', 'varchar(32)'][f % 5],
            type: { type: { [['com.linkedin.schema.NumberType', 'com.linkedin.schema.StringType', 'com.linkedin.schema.NumberType', 'com.linkedin.schema.TimeType', 'com.linkedin.schema.StringType'][f % 5]]: {} } },
            nullable: f % 3 !== 0,
            description: f % 2 ? `Column ${f} of table ${i}, as loaded from the upstream system` : undefined,
            recursive: false,
            isPartOfKey: f === 0,
          })),
        },
      };
    }
    case 'ownership': {
      const owners = hot ? [`urn:li:corpuser:owner_${i % 3}`] : [`urn:li:corpuser:user_${skewed(i, 500, 11)}`, `urn:li:corpuser:user_${skewed(i, 500, 13)}`];
      return { urn, name, value: { owners: [...new Set(owners)].map((owner) => ({ owner, type: 'DATAOWNER' })), lastModified: stamp } };
    }
    case 'globalTags':
      return { urn, name, value: { tags: hot ? [{ tag: 'urn:li:tag:PII' }] : [{ tag: `urn:li:tag:tag_${skewed(i, 200, 17)}` }] } };
    case 'upstreamLineage':
      return {
        urn,
        name,
        value: { upstreams: [{ dataset: urnOf(prefix, Math.max(0, i - 1 - (i % 3))), type: 'TRANSFORMED', auditStamp: stamp }] },
      };
  }
}
