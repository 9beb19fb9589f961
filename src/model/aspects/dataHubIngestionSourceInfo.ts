import type { AspectBehaviour } from './behaviour';

/** A deployed ingestion recipe (`datahub ingest deploy`, the UI's sources): name, source type, schedule and config. */
export const dataHubIngestionSourceInfo: AspectBehaviour = { name: 'dataHubIngestionSourceInfo' };
