"""Writes one entity of every class the official SDK v2 reads (datahub.sdk's ENTITY_CLASSES) with
client.entities.upsert, then reads it back with client.entities.get, unchanged.

Usage: <venv>/bin/python entities_check.py <service url> <token> <unique suffix>

Prints one JSON line per check: {"check": <entity type>, "ok": <bool>, ...}; the first line ("plan") lists the URNs
written, the second ("classes") every entity type the SDK reads. Exits 1 when any check failed.
"""

import json
import sys
import traceback
import warnings
from typing import Any, Callable, Dict

from datahub.emitter.mcp_builder import DatabaseKey as ContainerKey
from datahub.sdk._all_entities import ENTITY_CLASSES
from datahub.sdk.chart import Chart
from datahub.sdk.container import Container
from datahub.sdk.dashboard import Dashboard
from datahub.sdk.dataflow import DataFlow
from datahub.sdk.datajob import DataJob
from datahub.sdk.dataset import Dataset
from datahub.sdk.document import Document
from datahub.sdk.entity import Entity
from datahub.sdk.glossary_node import GlossaryNode
from datahub.sdk.glossary_term import GlossaryTerm
from datahub.sdk.main_client import DataHubClient
from datahub.sdk.mlmodel import MLModel
from datahub.sdk.mlmodelgroup import MLModelGroup
from datahub.sdk.metric import Metric
from datahub.sdk.semantic_model import SemanticModel
from datahub.sdk.tag import Tag

warnings.filterwarnings("ignore")
failures = 0


def report(check: str, ok: bool, **detail: Any) -> None:
    global failures
    if not ok:
        failures += 1
    print(json.dumps({"check": check, "ok": ok, **detail}, default=str), flush=True)


url, token, suffix = sys.argv[1], sys.argv[2], sys.argv[3]
client = DataHubClient(server=url, token=token)

container = Container(
    container_key=ContainerKey(platform="mysql", instance="east", database=f"shop_{suffix}"),
    display_name=f"shop_{suffix}",
    description="a database",
)
flow = DataFlow(platform="airflow", name=f"etl_{suffix}", description="nightly")
semantic_model = SemanticModel(platform="looker", path=f"models/{suffix}", id=f"sales_{suffix}", description="sales model")
group = MLModelGroup(id=f"churn_{suffix}", platform="sagemaker", description="churn models")

# One writer per entity type the SDK reads; the order lets later entities refer to earlier ones.
builders: Dict[str, Callable[[], Entity]] = {
    "container": lambda: container,
    "dataset": lambda: Dataset(platform="mysql", name=f"shop.public.orders_{suffix}", platform_instance="east", parent_container=container, description="orders", subtype="Table"),
    "dataFlow": lambda: flow,
    "dataJob": lambda: DataJob(name=f"load_{suffix}", flow=flow, description="loads"),
    "chart": lambda: Chart(platform="looker", name=f"revenue_{suffix}", display_name="Revenue", description="a chart"),
    "dashboard": lambda: Dashboard(platform="looker", name=f"board_{suffix}", display_name="Board", description="a dashboard"),
    "tag": lambda: Tag(name=f"pii_{suffix}", display_name="PII", description="personal data"),
    "glossaryNode": lambda: GlossaryNode(id=f"finance_{suffix}", display_name="Finance", definition="money"),
    "glossaryTerm": lambda: GlossaryTerm(id=f"revenue_{suffix}", display_name="Revenue", definition="income"),
    "mlModelGroup": lambda: group,
    "mlModel": lambda: MLModel(id=f"churn_v1_{suffix}", platform="sagemaker", name="churn v1", description="a model", model_group=group.urn),
    "document": lambda: Document.create_document(id=f"doc_{suffix}", title="Runbook", text="How the nightly load runs"),
    "semanticModel": lambda: semantic_model,
    "metric": lambda: Metric(platform="looker", path=f"models/{suffix}", id=f"revenue_total_{suffix}", semantic_model=semantic_model.urn, description="total revenue"),
}

print(json.dumps({"check": "classes", "ok": True, "types": sorted(ENTITY_CLASSES)}), flush=True)

written = []
for entity_type in sorted(ENTITY_CLASSES, key=lambda t: list(builders).index(t) if t in builders else len(builders)):
    if entity_type not in builders:
        report(entity_type, False, error=f"no writer for {ENTITY_CLASSES[entity_type].__name__} in entities_check.py")
        continue
    try:
        entity = builders[entity_type]()
        client.entities.upsert(entity)
        written.append(str(entity.urn))
        got = client.entities.get(entity.urn)
        assert isinstance(got, ENTITY_CLASSES[entity_type]), f"got a {type(got).__name__}"
        assert str(got.urn) == str(entity.urn), f"got {got.urn}"
        detail: Dict[str, Any] = {"urn": str(got.urn), "browse_path": [str(p) for p in (getattr(got, "browse_path", None) or [])]}
        if hasattr(got, "description"):
            assert got.description == entity.description, f"description {got.description!r}"
        report(entity_type, True, **detail)
    except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
        report(entity_type, False, error=f"{type(e).__name__}: {e}", trace=traceback.format_exc()[-2000:])

print(json.dumps({"check": "written", "ok": True, "urns": written}), flush=True)
sys.exit(1 if failures else 0)
