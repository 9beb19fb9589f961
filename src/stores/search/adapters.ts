import type * as ElasticsearchModule from '@elastic/elasticsearch';
import type * as OpenSearchModule from '@opensearch-project/opensearch';
import { ClientSearchEngine, type EngineClient } from './client-engine';
import type { EngineName, SearchEngine } from './engine';

export interface SearchConnection {
  engine: EngineName;
  url: string;
  username?: string;
  password?: string;
  timeoutMs: number;
}

/** Elasticsearch 8 through @elastic/elasticsearch; `meta: true` makes it answer `{body, statusCode}` like OpenSearch. */
function elasticsearch(c: SearchConnection): SearchEngine {
  // Loaded only when used: each client is hundreds of modules (+32 MB of RSS for this one, +21 MB for OpenSearch's).
  const { Client } = require('@elastic/elasticsearch') as typeof ElasticsearchModule;
  const client = new Client({
    node: c.url,
    auth: c.username ? { username: c.username, password: c.password ?? '' } : undefined,
    requestTimeout: c.timeoutMs,
    maxRetries: 1,
  });
  return new ClientSearchEngine('elasticsearch', client as unknown as EngineClient, { meta: true });
}

/** OpenSearch 2 through @opensearch-project/opensearch. */
function opensearch(c: SearchConnection): SearchEngine {
  const { Client } = require('@opensearch-project/opensearch') as typeof OpenSearchModule;
  const client = new Client({
    node: c.url,
    auth: c.username ? { username: c.username, password: c.password ?? '' } : undefined,
    requestTimeout: c.timeoutMs,
    maxRetries: 1,
  });
  return new ClientSearchEngine('opensearch', client as unknown as EngineClient, {});
}

export function createSearchEngine(connection: SearchConnection): SearchEngine {
  return connection.engine === 'elasticsearch' ? elasticsearch(connection) : opensearch(connection);
}
