"""The graph client's tag methods, DataHubGraph.create_tag and remove_tag (GraphQL createTag / removeTag).

Usage: <venv>/bin/python tags_check.py <service url> <token> <tag name> <dataset urn>
Creates the tag, tags the dataset with it (globalTags), removes it with remove_tag and prints one JSON object:
the urn create_tag returned, what remove_tag returned, and the dataset's tags after.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata import schema_classes as m

url, token, name, dataset = sys.argv[1:5]
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))
tag = graph.create_tag(name)
graph.emit(MetadataChangeProposalWrapper(entityUrn=dataset, aspect=m.GlobalTagsClass(tags=[m.TagAssociationClass(tag=tag), m.TagAssociationClass(tag="urn:li:tag:kept")])))
removed = graph.remove_tag(tag, dataset)
after = graph.get_aspect(dataset, m.GlobalTagsClass)
print(json.dumps({"tag": tag, "removed": removed, "after": [t.tag for t in after.tags] if after else None}))
