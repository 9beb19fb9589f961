"""SQL lineage with schemas from DataHub: the SQL parsing aggregator's bulk schema load (provide_schema_resolver, the
graph client's _bulk_fetch_schema_info_by_filter over GraphQL) and a parse against it.

Usage: <venv>/bin/python schema_resolver_check.py <service url> <token> <platform> <name prefix or ""> <sql>
Prints one JSON object: the urns whose schemas were loaded (with their field paths) and the parse's column lineage.
"""

import json
import logging
import sys
import warnings

warnings.filterwarnings("ignore")
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.sql_parsing.schema_resolver_provider import provide_schema_resolver
from datahub.sql_parsing.sqlglot_lineage import sqlglot_lineage

url, token, platform, prefix, sql = sys.argv[1:6]
# A failed bulk load is logged, not raised, by the aggregator; here it must surface.
logging.basicConfig(level=logging.WARNING)
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))
resolver = provide_schema_resolver(graph=graph, platform=platform, platform_instance=None, env="PROD", name_starts_with=prefix or None)
loaded = {urn: sorted(fields) for urn, fields in resolver._schema_cache.items() if fields}
parsed = sqlglot_lineage(sql, schema_resolver=resolver)
print(json.dumps({
    "loaded": loaded,
    "error": parsed.debug_info.error and str(parsed.debug_info.error),
    "columns": sorted(
        [cl.downstream.column, sorted(f"{u.table}.{u.column}" for u in cl.upstreams)] for cl in parsed.column_lineage or []
    ),
}))
