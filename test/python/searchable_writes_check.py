"""EmitMode.SYNC_WAIT through the official emitter in OpenAPI mode: each write, searched for the moment its emit
returns, is found (the emitter sends X-DataHub-Sync-Index-Update: true with each item).

Usage: <venv>/bin/python searchable_writes_check.py <service url> <token> <word prefix> <count>
Prints one JSON object: for each write, how many datasets a search for its word found right after the emit.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import datahub.metadata.schema_classes as m
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.rest_emitter import DatahubRestEmitter, EmitMode
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig

url, token, prefix, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
emitter = DatahubRestEmitter(url, token=token, openapi_ingestion=True)
emitter.test_connection()
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))

found = []
for i in range(count):
    word = f"{prefix}w{i}"
    urn = f"urn:li:dataset:(urn:li:dataPlatform:hive,{word},PROD)"
    mcp = MetadataChangeProposalWrapper(entityUrn=urn, aspect=m.DatasetPropertiesClass(name=word, description=f"orders of {word}"))
    emitter.emit(mcp, emit_mode=EmitMode.SYNC_WAIT)
    found.append(len(list(graph.get_urns_by_filter(entity_types=["dataset"], query=word))))
print(json.dumps({"openapi": bool(emitter._openapi_ingestion), "found": found}))
