"""DataHub's own smoke tests of the graph client's scroll_entities, scroll_relationships and scroll_lineage
(smoke-test/tests/openapi/v3/test_scroll_*.py), rewritten for this repository on entities of their own: six datasets,
two ML models, an ML feature derived from a dataset, and a data job that consumes one dataset and produces another.

The data is written with the sync index header, so every check may search at once.

Usage: <venv>/bin/python scroll_smoke_check.py <service url> <token> <unique suffix>
Prints one JSON line per check: {"check": <name>, "ok": <bool>, ...}. Exits 1 when any check failed.
"""

import json
import sys
import traceback
import warnings
from typing import Any, Callable, List, Optional, Set, Tuple

warnings.filterwarnings("ignore")
import datahub.metadata.schema_classes as m
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.ingestion.graph.openapi import LineageDirection, RelationshipDirection

failures = 0


def report(check: str, ok: bool, **detail: Any) -> None:
    global failures
    if not ok:
        failures += 1
    print(json.dumps({"check": check, "ok": ok, **detail}, default=str), flush=True)


def run(check: str, fn: Callable[[], Any]) -> None:
    try:
        report(check, True, **(fn() or {}))
    except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
        report(check, False, error=f"{type(e).__name__}: {e}", trace=traceback.format_exc()[-1500:])


url, token, suffix = sys.argv[1], sys.argv[2], sys.argv[3]
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))

P = f"scrolltest{suffix}"
PLATFORM = f"urn:li:dataPlatform:{P}"
ds = lambda name: f"urn:li:dataset:({PLATFORM},{name},PROD)"  # noqa: E731
ALPHA, BETA, GAMMA, DELTA, EPSILON, ZETA = (ds(n) for n in ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
MODEL_1, MODEL_2 = (f"urn:li:mlModel:({PLATFORM},{n},PROD)" for n in ["model1", "model2"])
FEATURE_1 = f"urn:li:mlFeature:({P},feature1)"
FLOW = f"urn:li:dataFlow:({P},flow1,PROD)"
JOB_1 = f"urn:li:dataJob:({FLOW},job1)"
ALL_DATASETS = {ALPHA, BETA, GAMMA, DELTA, EPSILON, ZETA}
ALL_MODELS = {MODEL_1, MODEL_2}
SCOPE = [{"and": [{"field": "platform", "values": [PLATFORM], "condition": "EQUAL"}]}]
RUN_ID = f"scroll-{suffix}"

aspects: List[Tuple[str, Any]] = [(urn, m.DatasetPropertiesClass(name=urn.split(",")[1], description=f"{urn.split(',')[1]} table")) for urn in sorted(ALL_DATASETS)]
aspects += [
    (ZETA, m.UpstreamLineageClass(upstreams=[m.UpstreamClass(dataset=ALPHA, type="TRANSFORMED")])),
    (FEATURE_1, m.MLFeaturePropertiesClass(sources=[ALPHA])),
    (MODEL_1, m.MLModelPropertiesClass(mlFeatures=[FEATURE_1])),
    (MODEL_2, m.MLModelPropertiesClass(description="second model")),
    (FLOW, m.DataFlowInfoClass(name="flow1")),
    (JOB_1, m.DataJobInfoClass(name="job1", type="COMMAND")),
    (JOB_1, m.DataJobInputOutputClass(inputDatasets=[ALPHA], outputDatasets=[GAMMA])),
]
graph.emit_mcps([
    MetadataChangeProposalWrapper(entityUrn=urn, aspect=aspect, systemMetadata=m.SystemMetadataClass(runId=RUN_ID, lastObserved=1700000000000), headers={"X-DataHub-Sync-Index-Update": "true"})
    for urn, aspect in aspects
])


# ---- scroll_entities (test_scroll_entities.py)

def entities_basic():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=5)
    assert r.total_count == 6 and len(r.entities) == 5 and r.scroll_id is not None, (r.total_count, len(r.entities), r.scroll_id)


def entities_aspects_none():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=None, count=10)
    assert set(r.entities) == ALL_DATASETS, set(r.entities)
    assert all(a == {} for a in r.entities.values()), r.entities


def entities_aspects_empty():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=[], count=10)
    assert set(r.entities) == ALL_DATASETS, set(r.entities)
    for urn, a in r.entities.items():
        assert "datasetKey" in a and "datasetProperties" in a, (urn, sorted(a))


def entities_aspects_single():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetProperties"], count=10)
    assert set(r.entities) == ALL_DATASETS and all(set(a) == {"datasetProperties"} for a in r.entities.values()), r.entities


def entities_by_type():
    d = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=10)
    assert set(d.entities) == ALL_DATASETS, set(d.entities)
    for a in d.entities.values():
        assert a["datasetKey"][0].platform == PLATFORM and a["datasetKey"][0].name, a
    mdl = graph.scroll_entities(entity_names=["mlModel"], filter=SCOPE, aspects=["mlModelKey"], count=10)
    assert set(mdl.entities) == ALL_MODELS, set(mdl.entities)


def entities_by_types():
    r = graph.scroll_entities(entity_names=["dataset", "mlModel"], aspects=["datasetKey", "mlModelKey"], filter=SCOPE, count=20)
    assert set(r.entities) == ALL_DATASETS | ALL_MODELS, set(r.entities)


def entities_impossible_filter():
    impossible = [{"and": [{"field": "platform", "values": ["urn:li:dataPlatform:__nonexistent__"], "condition": "EQUAL"}]}]
    r = graph.scroll_entities(entity_names=["dataset"], aspects=["datasetKey"], count=10, filter=impossible)
    assert r.total_count == 0, r.total_count


def entities_pagination():
    first = graph.scroll_entities(filter=SCOPE, entity_names=["dataset"], aspects=["datasetKey"], count=3)
    second = graph.scroll_entities(filter=SCOPE, entity_names=["dataset"], aspects=["datasetKey"], count=3, scroll_id=first.scroll_id)
    assert len(first.entities) == 3 and first.scroll_id and len(second.entities) == 3, (first, second)
    assert set(first.entities).isdisjoint(second.entities) and set(first.entities) | set(second.entities) == ALL_DATASETS


def entities_sort_criteria():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=10, sort_criteria=[{"field": "urn", "order": "ASCENDING"}])
    urns = list(r.entities)
    assert set(urns) == ALL_DATASETS and urns == sorted(urns), urns
    down = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=10, sort_criteria=[{"field": "urn", "order": "DESCENDING"}])
    assert list(down.entities) == sorted(urns, reverse=True), list(down.entities)


def entities_query():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], query="alpha", count=10)
    assert r.total_count > 0 and ALPHA in r.entities, (r.total_count, set(r.entities))


def entities_system_metadata():
    r = graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=10, with_system_metadata=True)
    assert set(r.entities) == ALL_DATASETS
    for urn, a in r.entities.items():
        _, sm = a["datasetKey"]
        assert sm is not None and sm.runId, (urn, sm)


def entities_slicing_refused():
    # DataHub splits a scroll into slices (slice_id/slice_max); this service refuses them rather than answer a slice
    # with every entity (the scroll holds no engine context to slice).
    try:
        graph.scroll_entities(entity_names=["dataset"], filter=SCOPE, aspects=["datasetKey"], count=10, slice_id=0, slice_max=2)
    except Exception as e:  # noqa: BLE001
        assert "400" in str(e), e
        return {}
    raise AssertionError("a sliced scroll was answered")


# ---- scroll_relationships (test_scroll_relationships.py)

def edges_of(result) -> Set[Tuple[str, str, str]]:
    return {(r.source_urn, r.destination_urn, r.relationship_type) for r in result.relationships}


def relationships_basic():
    r = graph.scroll_relationships(count=5)
    assert all(x.source_urn and x.destination_urn and x.relationship_type for x in r.relationships), r


def relationships_by_type():
    for rel, src, dst in [("DownstreamOf", ZETA, ALPHA), ("DerivedFrom", FEATURE_1, ALPHA), ("Consumes", MODEL_1, FEATURE_1)]:
        r = graph.scroll_relationships(relationship_types=[rel], source_urns=[src], count=10)
        assert r.relationships and all(x.relationship_type == rel for x in r.relationships) and (src, dst, rel) in edges_of(r), (rel, edges_of(r))


def relationships_source_urns():
    r = graph.scroll_relationships(source_urns=[ZETA], count=10)
    assert [e for e in edges_of(r) if e == (ZETA, ALPHA, "DownstreamOf")], edges_of(r)


def relationships_destination_urns():
    r = graph.scroll_relationships(destination_urns=[ALPHA], count=100)
    assert {(ZETA, ALPHA, "DownstreamOf"), (FEATURE_1, ALPHA, "DerivedFrom")} <= edges_of(r), edges_of(r)


def relationships_urns_equal_filters():
    a = edges_of(graph.scroll_relationships(source_urns=[ZETA], count=10))
    b = edges_of(graph.scroll_relationships(source_filter=[{"and": [{"field": "urn", "values": [ZETA], "condition": "EQUAL"}]}], count=10))
    assert a == b and a, (a, b)
    c = edges_of(graph.scroll_relationships(destination_urns=[ALPHA], count=100))
    d = edges_of(graph.scroll_relationships(destination_filter=[{"and": [{"field": "urn", "values": [ALPHA], "condition": "EQUAL"}]}], count=100))
    assert c == d and c, (c, d)


def relationships_entity_types():
    r = graph.scroll_relationships(source_urns=[FEATURE_1], source_types=["mlFeature"], count=10)
    assert r.relationships and all(x.source_entity_type == "mlFeature" for x in r.relationships), r
    r = graph.scroll_relationships(destination_urns=[ALPHA], destination_types=["dataset"], count=100)
    assert all(x.destination_entity_type == "dataset" for x in r.relationships), r
    assert {(ZETA, ALPHA), (FEATURE_1, ALPHA)} <= {(s, d) for s, d, _ in edges_of(r)}, edges_of(r)


def relationships_edge_filter():
    f = [{"and": [{"field": "relationshipType", "values": ["DownstreamOf"], "condition": "EQUAL"}]}]
    r = graph.scroll_relationships(source_urns=[ZETA], edge_filter=f, count=10)
    assert edges_of(r) == {(ZETA, ALPHA, "DownstreamOf")}, edges_of(r)


def relationships_directions():
    out = graph.scroll_relationships(relationship_types=["DownstreamOf"], source_urns=[ZETA], direction=RelationshipDirection.OUTGOING, count=10)
    assert (ZETA, ALPHA, "DownstreamOf") in edges_of(out), edges_of(out)
    inc = graph.scroll_relationships(source_urns=[ALPHA], direction=RelationshipDirection.INCOMING, count=100)
    assert {(ZETA, ALPHA, "DownstreamOf"), (FEATURE_1, ALPHA, "DerivedFrom")} <= edges_of(inc), edges_of(inc)


def relationships_pagination():
    first = graph.scroll_relationships(destination_urns=[ALPHA], count=1)
    second = graph.scroll_relationships(destination_urns=[ALPHA], count=1, scroll_id=first.scroll_id)
    assert first.relationships and first.scroll_id and second.relationships and edges_of(first).isdisjoint(edges_of(second)), (first, second)


# ---- scroll_lineage (test_scroll_lineage.py): edges as (upstream, downstream, type)

DOWNSTREAM_OF = (ALPHA, ZETA, "DownstreamOf")
DERIVED_FROM = (ALPHA, FEATURE_1, "DerivedFrom")
CONSUMES_FEATURE = (FEATURE_1, MODEL_1, "Consumes")
CONSUMES_INPUT = (ALPHA, JOB_1, "Consumes")
PRODUCES_OUTPUT = (JOB_1, GAMMA, "Produces")


def lineage(urns: Optional[List[str]] = None, direction=None, relationship_types=None, count: int = 100) -> Set[Tuple[str, str, str]]:
    edges: Set[Tuple[str, str, str]] = set()
    scroll_id = None
    while True:
        r = graph.scroll_lineage(urns=urns, direction=direction, relationship_types=relationship_types, count=count, scroll_id=scroll_id)
        edges.update((x.upstream_urn, x.downstream_urn, x.relationship_type) for x in r.relationships)
        scroll_id = r.scroll_id
        if scroll_id is None:
            return edges


def lineage_around_urn():
    assert lineage([ALPHA]) == {DOWNSTREAM_OF, DERIVED_FROM, CONSUMES_INPUT}, lineage([ALPHA])


def lineage_upstream_root():
    assert lineage([ALPHA], LineageDirection.DOWNSTREAM) == {DOWNSTREAM_OF, DERIVED_FROM, CONSUMES_INPUT}
    assert lineage([ALPHA], LineageDirection.UPSTREAM) == set()


def lineage_produces():
    assert lineage([GAMMA], LineageDirection.UPSTREAM) == {PRODUCES_OUTPUT}, lineage([GAMMA], LineageDirection.UPSTREAM)
    assert lineage([GAMMA], LineageDirection.DOWNSTREAM) == set()


def lineage_data_job():
    assert lineage([JOB_1], LineageDirection.UPSTREAM) == {CONSUMES_INPUT}, lineage([JOB_1], LineageDirection.UPSTREAM)
    assert lineage([JOB_1], LineageDirection.DOWNSTREAM) == {PRODUCES_OUTPUT}, lineage([JOB_1], LineageDirection.DOWNSTREAM)


def lineage_feature():
    assert lineage([FEATURE_1], LineageDirection.UPSTREAM) == {DERIVED_FROM}
    assert lineage([FEATURE_1], LineageDirection.DOWNSTREAM) == {CONSUMES_FEATURE}


def lineage_types():
    assert lineage([ALPHA], relationship_types=["DerivedFrom"]) == {DERIVED_FROM}


def lineage_pagination():
    seen: Set[Tuple[str, str, str]] = set()
    scroll_id, pages = None, 0
    while True:
        r = graph.scroll_lineage(urns=[ALPHA], count=1, scroll_id=scroll_id)
        page = {(x.upstream_urn, x.downstream_urn, x.relationship_type) for x in r.relationships}
        assert seen.isdisjoint(page), page
        seen |= page
        pages += 1
        scroll_id = r.scroll_id
        if scroll_id is None:
            break
    assert seen == {DOWNSTREAM_OF, DERIVED_FROM, CONSUMES_INPUT}, seen
    return {"pages": pages}


def lineage_no_urns():
    r = graph.scroll_lineage(count=10)
    assert all(x.upstream_urn and x.downstream_urn and x.relationship_type for x in r.relationships), r


for name, fn in list(globals().items()):
    if callable(fn) and name.split("_")[0] in ("entities", "relationships", "lineage") and name not in ("lineage",):
        run(name, fn)
sys.exit(1 if failures else 0)
