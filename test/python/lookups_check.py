"""Lookups the official client makes through search: DataHubGraph.get_domain_urn_by_name (rest.li entities?action=search,
read as DataHub 1.x's {entity, matchedFields}; ingestion's domain registry uses it) and PlatformResource.search_by_key
(OpenAPI v3 scroll of `platformresource`, the entity type in lower case; SQL-parsing sources use it).

Usage: <venv>/bin/python lookups_check.py <service url> <unique suffix>
Prints one JSON object with what each lookup found, once all are found or after 60 s.
"""

import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
from datahub.api.entities.platformresource.platform_resource import PlatformResource, PlatformResourceKey
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata import schema_classes as m

url, suffix = sys.argv[1], sys.argv[2]
graph = DataHubGraph(DatahubClientConfig(server=url))
graph.emit(MetadataChangeProposalWrapper(entityUrn="urn:li:domain:d_%s" % suffix, aspect=m.DomainPropertiesClass(name="Finance %s" % suffix)))
key = PlatformResourceKey(platform="snowflake", resource_type="tag", primary_key="pk_%s" % suffix, platform_instance=None)
PlatformResource.create(key=key, value={"a": 1}, secondary_keys=["sk_%s" % suffix]).to_datahub(graph)


def lookups():
    return {
        "domain": graph.get_domain_urn_by_name("Finance %s" % suffix),
        "byKey": [r.id for r in PlatformResource.search_by_key(graph, "pk_%s" % suffix)],
        "bySecondaryKey": [r.id for r in PlatformResource.search_by_key(graph, "sk_%s" % suffix, primary=False)],
    }


deadline = time.time() + 60
found = lookups()
while not (found["domain"] and found["byKey"] and found["bySecondaryKey"]) and time.time() < deadline:
    time.sleep(0.5)
    found = lookups()
print(json.dumps({**found, "resourceId": key.id}))
