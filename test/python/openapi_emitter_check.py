"""The official emitter in OpenAPI mode (`openapi_ingestion=True`, or DATAHUB_REST_EMITTER_DEFAULT_ENDPOINT=OPENAPI):
upserts, a batch, patches built by the client's patch builder and the key-aspect delete all go to /openapi/v3/entity.

Usage: <venv>/bin/python openapi_emitter_check.py <service url> <token> <dataset urn>
Prints one JSON object of what was read back through the rest.li graph client.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import datahub.metadata.schema_classes as m
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.specific.dataset import DatasetPatchBuilder

url, token, dataset = sys.argv[1:4]
emitter = DatahubRestEmitter(url, token=token, openapi_ingestion=True)
emitter.test_connection()
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))

emitter.emit(MetadataChangeProposalWrapper(entityUrn=dataset, aspect=m.DatasetPropertiesClass(name="orders", description="first")))
emitter.emit_mcps([
    MetadataChangeProposalWrapper(entityUrn=dataset, aspect=m.GlobalTagsClass(tags=[m.TagAssociationClass(tag="urn:li:tag:pii")])),
    MetadataChangeProposalWrapper(entityUrn=dataset, aspect=m.StatusClass(removed=False)),
])
for mcp in DatasetPatchBuilder(dataset).set_description("patched").add_tag(m.TagAssociationClass(tag="urn:li:tag:gold")).build():
    emitter.emit(mcp)
properties = graph.get_aspect(dataset, m.DatasetPropertiesClass)
tags = graph.get_aspect(dataset, m.GlobalTagsClass)
existed = graph.exists(dataset)
key = m.DatasetKeyClass(platform=dataset.split("(")[1].split(",")[0], name=dataset.split(",")[1], origin="PROD")
emitter.emit(MetadataChangeProposalWrapper(entityUrn=dataset, aspect=key, changeType="DELETE"))
print(json.dumps({
    "openapi": bool(emitter._openapi_ingestion),
    "name": properties.name,
    "description": properties.description,
    "tags": sorted(t.tag for t in tags.tags),
    "existed": existed,
    "exists_after_delete": graph.exists(dataset),
}))
