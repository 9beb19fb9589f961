import type {
  Body,
  BulkItemResult,
  BulkOperation,
  EngineName,
  LongRunningOptions,
  MultiSearchRequest,
  SearchEngine,
  SearchResult,
  TaskInfo,
} from './engine';
import { translateEngineError } from './engine';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Call = (params: Record<string, unknown>, options?: Record<string, unknown>) => Promise<{ body: any; statusCode?: number | null }>;

/**
 * The structural subset of @elastic/elasticsearch 8 and @opensearch-project/opensearch that we use. Both accept the
 * same parameter names with a `body`, and both answer `{body, statusCode}` (Elasticsearch with `meta: true`).
 */
export interface EngineClient {
  cluster: { health: Call };
  search: Call;
  msearch: Call;
  count: Call;
  bulk: Call;
  deleteByQuery: Call;
  reindex: Call;
  indices: {
    exists: Call;
    create: Call;
    delete: Call;
    refresh: Call;
    putMapping: Call;
    getMapping: Call;
    getAlias: Call;
    updateAliases: Call;
    addBlock: Call;
  };
  cat: { indices: Call };
  tasks: { get: Call };
  nodes: { info: Call };
  close(): Promise<void>;
}

/**
 * The error of a search some shards failed (the engine still answers 200, with the other shards' hits): refused as its
 * first failure's cause, never passed on as if the hits were all there.
 */
function shardFailure(response: any): Error | null {
  const shards = response?._shards;
  if (!shards?.failed) return null;
  const reason = shards.failures?.[0]?.reason ?? {};
  const failure = Object.assign(new Error(`search failed on ${shards.failed} of ${shards.total} shards: ${reason.type ?? 'unknown'}`), {
    name: 'ResponseError',
    meta: { statusCode: shards.failures?.[0]?.status ?? 500, body: { error: reason } },
  });
  return translateEngineError(failure) as Error;
}

function toSearchResult(response: any): SearchResult {
  const total = response.hits?.total;
  return {
    total: typeof total === 'number' ? total : Number(total?.value ?? 0),
    hits: (response.hits?.hits ?? []).map((h: any) => ({
      id: h._id,
      index: h._index,
      score: h._score ?? null,
      source: h._source ?? {},
      highlight: h.highlight,
      sort: h.sort,
    })),
    aggregations: response.aggregations,
  };
}

/** How long a search waits for the shards of an index that is being created before it fails. */
const SHARD_WAIT_MS = 1000;

/** One implementation over either client: the adapters differ only in how the client is built. */
export class ClientSearchEngine implements SearchEngine {
  private reindexSupport?: boolean;

  constructor(
    readonly engine: EngineName,
    private readonly client: EngineClient,
    private readonly requestOptions: Record<string, unknown>,
  ) {}

  /** Calls a client method bound to its namespace (the Elasticsearch client needs `this`). */
  private async call<T = any>(fn: Call, params: Record<string, unknown>, options: Record<string, unknown> = {}, owner: unknown = this.client): Promise<T> {
    try {
      const response = await fn.call(owner, params, { ...this.requestOptions, ...options });
      return response.body as T;
    } catch (err) {
      throw translateEngineError(err);
    }
  }

  /**
   * A read of `index` that fails with 503 because a shard has not started yet (the index is being created by the first
   * write of its entity type) is sent once more when its shards have started, waiting at most SHARD_WAIT_MS.
   */
  private async callOnStartedShards<T = any>(index: string, fn: Call, params: Record<string, unknown>): Promise<T> {
    try {
      return (await fn.call(this.client, params, this.requestOptions)).body as T;
    } catch (err) {
      if ((err as { meta?: { statusCode?: number } }).meta?.statusCode !== 503) throw translateEngineError(err);
    }
    await this.waitForShards([index]);
    return this.call<T>(fn, params);
  }

  async ping(timeoutMs: number): Promise<void> {
    // Cluster health rather than HEAD /: Elasticsearch's test distribution answers 405 to the root path.
    await this.call(this.client.cluster.health, {}, { requestTimeout: timeoutMs, maxRetries: 0 }, this.client.cluster);
  }

  async supportsReindex(): Promise<boolean> {
    if (this.reindexSupport === undefined) {
      const info = await this.call(this.client.nodes.info, { metric: 'plugins' }, {}, this.client.nodes);
      const nodes = Object.values<any>(info.nodes ?? {});
      this.reindexSupport = nodes.length > 0 && nodes.every((n) => (n.modules ?? []).concat(n.plugins ?? []).some((m: any) => m.name === 'reindex' || m.classname?.endsWith('ReindexPlugin') || m.classname?.endsWith('ReindexModulePlugin')));
    }
    return this.reindexSupport;
  }

  async indexExists(index: string): Promise<boolean> {
    try {
      const response = await this.client.indices.exists.call(this.client.indices, { index }, this.requestOptions);
      return response.statusCode === 200 || response.body === true;
    } catch (err) {
      const e = err as { meta?: { statusCode?: number } };
      if (e.meta?.statusCode === 404) return false;
      throw translateEngineError(err);
    }
  }

  async createIndex(index: string, definition: { settings?: Body; mappings?: Body; aliases?: Body }): Promise<void> {
    try {
      await this.client.indices.create.call(this.client.indices, { index, body: definition }, this.requestOptions);
    } catch (err) {
      const e = err as { meta?: { body?: { error?: { type?: string } } } };
      if (e.meta?.body?.error?.type === 'resource_already_exists_exception') return;
      throw translateEngineError(err);
    }
  }

  async putMapping(index: string, mappings: Body): Promise<void> {
    await this.call(this.client.indices.putMapping, { index, body: mappings }, {}, this.client.indices);
  }

  async deleteIndex(index: string): Promise<void> {
    // The engines delete nothing for an alias's name: the indices behind it go (entity indices are aliases).
    const behind = [...(await this.getAliases(index)).values()].flatMap((targets) => targets.map((t) => t.index));
    if (behind.length > 0) await this.call(this.client.indices.delete, { index: [...new Set(behind)].join(','), ignore_unavailable: true }, {}, this.client.indices);
    await this.call(this.client.indices.delete, { index, ignore_unavailable: true, allow_no_indices: true, expand_wildcards: 'open,closed' }, {}, this.client.indices);
  }

  async refresh(index: string): Promise<void> {
    await this.call(this.client.indices.refresh, { index, ignore_unavailable: true, allow_no_indices: true }, {}, this.client.indices);
  }

  async getAliases(pattern: string): Promise<Map<string, { index: string; isWriteIndex: boolean }[]>> {
    let body: Record<string, { aliases?: Record<string, { is_write_index?: boolean }> }>;
    try {
      const response = await this.client.indices.getAlias.call(this.client.indices, { name: pattern, expand_wildcards: 'open' }, this.requestOptions);
      body = response.body ?? {};
    } catch (err) {
      const e = err as { meta?: { statusCode?: number } };
      if (e.meta?.statusCode === 404) return new Map();
      throw translateEngineError(err);
    }
    const out = new Map<string, { index: string; isWriteIndex: boolean }[]>();
    for (const [index, entry] of Object.entries(body)) {
      for (const [alias, options] of Object.entries(entry.aliases ?? {})) {
        out.set(alias, [...(out.get(alias) ?? []), { index, isWriteIndex: options?.is_write_index === true }]);
      }
    }
    for (const targets of out.values()) targets.sort((a, b) => a.index.localeCompare(b.index));
    return out;
  }

  async updateAliases(actions: Body[]): Promise<void> {
    await this.call(this.client.indices.updateAliases, { body: { actions } }, {}, this.client.indices);
  }

  async blockWrites(index: string): Promise<void> {
    await this.call(this.client.indices.addBlock, { index, block: 'write' }, {}, this.client.indices);
  }

  async getMappingMeta(index: string): Promise<Map<string, Body>> {
    const mappings = await this.getMappings(index);
    return new Map([...mappings].map(([name, mapping]) => [name, (mapping._meta as Body | undefined) ?? {}]));
  }

  async getMappings(index: string): Promise<Map<string, Body>> {
    const body = await this.call<Record<string, { mappings?: Body }>>(
      this.client.indices.getMapping,
      { index, ignore_unavailable: true, allow_no_indices: true },
      {},
      this.client.indices,
    );
    return new Map(Object.entries(body ?? {}).map(([name, entry]) => [name, entry.mappings ?? {}]));
  }

  async listIndices(pattern: string): Promise<{ index: string; sizeBytes: number; docs: number }[]> {
    const rows = await this.call<any[]>(this.client.cat.indices, { index: pattern, format: 'json', bytes: 'b', expand_wildcards: 'open' }, {}, this.client.cat);
    return rows
      .filter((r) => !String(r.index).startsWith('.'))
      .map((r) => ({ index: r.index, sizeBytes: Number(r['store.size'] ?? r['pri.store.size'] ?? 0), docs: Number(r['docs.count'] ?? 0) }))
      .sort((a, b) => a.index.localeCompare(b.index));
  }

  async bulk(operations: BulkOperation[], refresh = false): Promise<BulkItemResult[]> {
    if (operations.length === 0) return [];
    const body: unknown[] = [];
    for (const o of operations) {
      const versioning = o.version === undefined ? {} : { version: o.version, version_type: 'external_gte' };
      const aliasOnly = o.op === 'index' && o.requireAlias ? { require_alias: true } : {};
      body.push({ [o.op]: { _index: o.index, _id: o.id, ...versioning, ...aliasOnly } });
      if (o.op === 'index') body.push(o.doc);
    }
    const response = await this.call(this.client.bulk, { body, refresh: refresh ? 'true' : 'false' });
    return (response.items as any[]).map((item) => {
      const r = item.index ?? item.delete ?? item.create ?? item.update;
      const superseded = r.status === 409;
      const ok = r.status < 300 || superseded || (item.delete !== undefined && r.status === 404);
      return { id: r._id, index: r._index, ok, superseded, status: r.status, error: ok ? undefined : String(r.error?.type ?? r.status) };
    });
  }

  async search(index: string, body: Body): Promise<SearchResult> {
    const response = await this.callOnStartedShards(index, this.client.search, { index, body, ignore_unavailable: true, allow_no_indices: true, track_total_hits: true });
    const failed = shardFailure(response);
    if (failed) throw failed;
    return toSearchResult(response);
  }

  /**
   * Sub-searches that reached an index whose shard has not started yet (503) are sent once more when those indices'
   * shards have started, as single searches are (callOnStartedShards); one still failing fails as before.
   */
  async msearch(requests: MultiSearchRequest[]): Promise<(SearchResult | Error)[]> {
    const answers = await this.msearchOnce(requests);
    const waiting = requests.map((_, i) => i).filter((i) => answers[i].status === 503);
    if (waiting.length > 0) {
      await this.waitForShards([...new Set(waiting.map((i) => requests[i].index))]);
      const again = await this.msearchOnce(waiting.map((i) => requests[i]));
      waiting.forEach((i, k) => (answers[i] = again[k]));
    }
    return answers.map((answer) => answer.result);
  }

  private async msearchOnce(requests: MultiSearchRequest[]): Promise<{ status: number; result: SearchResult | Error }[]> {
    const body: Body[] = [];
    for (const r of requests) {
      body.push(r.ignoreUnavailable === false ? { index: r.index } : { index: r.index, ignore_unavailable: true, allow_no_indices: true });
      body.push({ track_total_hits: true, ...r.body });
    }
    const response = await this.call(this.client.msearch, { body });
    return (response.responses as any[]).map((item) => {
      const failed = item.error ? null : shardFailure(item);
      if (failed) return { status: 500, result: failed };
      if (!item.error) return { status: 200, result: toSearchResult(item) };
      const failure = Object.assign(new Error(`search failed: ${item.error.type ?? item.status}`), { name: 'ResponseError', meta: { statusCode: item.status, body: { error: item.error } } });
      return { status: Number(item.status), result: translateEngineError(failure) as Error };
    });
  }

  /** Returns once every shard of these indices has started, or after SHARD_WAIT_MS. */
  private async waitForShards(indices: string[]): Promise<void> {
    // Green: a new index reports yellow while its primary is not even assigned, and the service's indices have no
    // replicas, so green means every shard has started.
    const params = { index: indices.join(','), wait_for_status: 'green', timeout: `${SHARD_WAIT_MS}ms` };
    // A timeout answers 408; the second attempt then reports whatever is still wrong.
    await this.client.cluster.health.call(this.client.cluster, params, { ...this.requestOptions, ignore: [408] }).catch(() => undefined);
  }

  async count(index: string, query?: Body): Promise<number> {
    const response = await this.callOnStartedShards(index, this.client.count, { index, body: query ? { query } : undefined, ignore_unavailable: true, allow_no_indices: true });
    return Number(response.count ?? 0);
  }

  private longRunningParams(options: LongRunningOptions): Record<string, unknown> {
    return {
      wait_for_completion: options.waitForCompletion,
      ...(options.batchSize ? { scroll_size: options.batchSize } : {}),
      ...(options.timeoutSeconds ? { timeout: `${options.timeoutSeconds}s` } : {}),
      ...(options.refresh ? { refresh: true } : {}),
    };
  }

  async deleteByQuery(index: string, query: Body, options: LongRunningOptions): Promise<{ task?: string; deleted?: number }> {
    const response = await this.call(this.client.deleteByQuery, { index, body: { query }, conflicts: 'proceed', ...this.longRunningParams(options) });
    return { task: response.task, deleted: response.deleted };
  }

  async reindex(body: Body, options: LongRunningOptions): Promise<{ task?: string; created?: number }> {
    const { scroll_size, ...params } = this.longRunningParams(options) as Record<string, unknown>;
    const source = { ...(body.source as Body), ...(scroll_size ? { size: scroll_size } : {}) };
    const response = await this.call(this.client.reindex, { body: { ...body, source }, ...params });
    return { task: response.task, created: response.created };
  }

  async getTask(taskId: string): Promise<TaskInfo | null> {
    try {
      const response = await this.client.tasks.get.call(this.client.tasks, { task_id: taskId }, this.requestOptions);
      const body = response.body;
      return {
        completed: Boolean(body.completed),
        node: body.task.node,
        id: Number(body.task.id),
        runningTimeNanos: Number(body.task.running_time_in_nanos ?? 0),
        status: body.task.status ?? {},
        response: body.response,
        error: body.error,
      };
    } catch (err) {
      const e = err as { meta?: { statusCode?: number } };
      if (e.meta?.statusCode === 404 || e.meta?.statusCode === 400) return null;
      throw translateEngineError(err);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
