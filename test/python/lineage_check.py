"""Drives the official SDK v2 (datahub.sdk.main_client.DataHubClient) lineage calls, unchanged, against the service.

Usage: <venv>/bin/python lineage_check.py <service url> <token> <unique suffix>

Prints one JSON line per check: {"check": <name>, "ok": <bool>, ...}; the first line ("plan") lists the URNs written.
Exits 1 when any check failed.
"""

import json
import sys
import traceback
import warnings
from typing import Any, Callable

from datahub.metadata import schema_classes as models
from datahub.sdk.dataset import Dataset
from datahub.sdk.main_client import DataHubClient
from datahub.sdk.search_filters import FilterDsl as F
from datahub.specific.dataset import DatasetPatchBuilder

warnings.filterwarnings("ignore")
failures = 0


def report(check: str, ok: bool, **detail: Any) -> None:
    global failures
    if not ok:
        failures += 1
    print(json.dumps({"check": check, "ok": ok, **detail}, default=str), flush=True)


def run(check: str, fn: Callable[[], Any]) -> None:
    try:
        detail = fn() or {}
        report(check, True, **detail)
    except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
        report(check, False, error=f"{type(e).__name__}: {e}", trace=traceback.format_exc()[-2000:])


url, token, suffix = sys.argv[1], sys.argv[2], sys.argv[3]
client = DataHubClient(server=url, token=token)


def ds(name: str, platform: str = "hive") -> str:
    return f"urn:li:dataset:(urn:li:dataPlatform:{platform},{suffix}.{name},PROD)"


def field(dataset: str, f: str) -> str:
    return f"urn:li:schemaField:({dataset},{f})"


names = {"a": "hive", "b": "hive", "c": "snowflake", "d": "snowflake", "e": "hive", "t": "hive", "k": "hive"}
print(json.dumps({"check": "plan", "ok": True, "urns": [ds(n, p) for n, p in names.items()] + [f"urn:li:chart:(looker,{suffix}.chart)", f"urn:li:dashboard:(looker,{suffix}.dash)"]}), flush=True)
A, B, C, D, E = ds("a"), ds("b"), ds("c", "snowflake"), ds("d", "snowflake"), ds("e")


def add_lineage_chain():
    # a → b (with an explicit column mapping), b → c, c → d, d → e
    client.lineage.add_lineage(upstream=A, downstream=B, column_lineage={"id": ["id"], "name": ["name"]})
    client.lineage.add_lineage(upstream=B, downstream=C)
    client.lineage.add_lineage(upstream=C, downstream=D)
    client.lineage.add_lineage(upstream=D, downstream=E)
    up = client._graph.get_aspect(B, models.UpstreamLineageClass)
    assert up is not None and [u.dataset for u in up.upstreams] == [A], up
    assert up.fineGrainedLineages and {f.downstreams[0] for f in up.fineGrainedLineages} == {field(B, "id"), field(B, "name")}, up
    # Adding the same upstream again is idempotent (keyed by the upstream dataset).
    client.lineage.add_lineage(upstream=A, downstream=B)
    up = client._graph.get_aspect(B, models.UpstreamLineageClass)
    assert [u.dataset for u in up.upstreams] == [A], up
    return {"upstreams": len(up.upstreams)}


def deprecated_variants():
    T, K = ds("t"), ds("k")
    client.lineage.add_dataset_copy_lineage(upstream=A, downstream=K, column_lineage=None)
    client.lineage.add_dataset_transform_lineage(upstream=A, downstream=T, column_lineage={"x": ["id"]})
    k = client._graph.get_aspect(K, models.UpstreamLineageClass)
    t = client._graph.get_aspect(T, models.UpstreamLineageClass)
    assert k and k.upstreams[0].type == "COPY" and k.upstreams[0].dataset == A, k
    assert t and t.upstreams[0].type == "TRANSFORMED" and t.fineGrainedLineages[0].upstreams == [field(A, "id")], t
    return {}


def get_downstream_two_hops_platform():
    res = client.lineage.get_lineage(source_urn=A, direction="downstream", max_hops=2, filter=F.platform("snowflake"))
    got = sorted((r.urn, r.hops, r.platform) for r in res)
    assert got == [(C, 2, "snowflake")], got
    return {"results": got}


def get_upstream():
    res = client.lineage.get_lineage(source_urn=C, direction="upstream")
    got = sorted((r.urn, r.hops) for r in res)
    assert got == [(B, 1)], got
    return {"results": got}


def get_max_hops_three():
    res = client.lineage.get_lineage(source_urn=A, direction="downstream", max_hops=3)
    got = {r.urn: r.hops for r in res}
    # "3+" asks for every hop from 3 on: d (3) and e (4) both come back.
    assert got.get(B) == 1 and got.get(C) == 2 and got.get(D) == 3 and got.get(E) == 4, got
    return {"results": got}


def get_column():
    res = client.lineage.get_lineage(source_urn=B, source_column="id", direction="upstream")
    got = [(r.urn, r.hops, r.type) for r in res]
    # As DataHub's scrollAcrossLineage answers a column's lineage: the datasets holding the columns, the column path in
    # each result's paths (DataHub's test_lineage_sdk.py asserts the same).
    assert got == [(A, 1, "DATASET")], got
    assert [p.column_name for p in res[0].paths] == ["id", "id"], res[0].paths
    assert [p.urn for p in res[0].paths] == [field(B, "id"), field(A, "id")], res[0].paths
    return {"results": got}


def entities_update_patch():
    patch = DatasetPatchBuilder(E)
    patch.add_tag(models.TagAssociationClass(f"urn:li:tag:{suffix}"))
    patch.add_custom_property("owner-team", "lineage")
    patch.add_owner(models.OwnerClass(f"urn:li:corpuser:{suffix}", type=models.OwnershipTypeClass.DATAOWNER))
    client.entities.update(patch)
    dataset = client.entities.get(E)
    assert [str(t.tag) for t in dataset.tags] == [f"urn:li:tag:{suffix}"], dataset.tags
    assert dataset.custom_properties.get("owner-team") == "lineage", dataset.custom_properties
    assert [str(o.owner) for o in dataset.owners] == [f"urn:li:corpuser:{suffix}"], dataset.owners
    upstreams = dataset.upstreams
    return {"upstreams": str(upstreams)[:200]}


def create_datasets():
    for n, p in names.items():
        client.entities.upsert(Dataset(platform=p, name=f"{suffix}.{n}", description=f"dataset {n}", schema=[("id", "string"), ("name", "string")]))
    got = client.entities.get(A)
    assert got.description == "dataset a", got
    return {}


CHART = f"urn:li:chart:(looker,{suffix}.chart)"
DASHBOARD = f"urn:li:dashboard:(looker,{suffix}.dash)"


def chart_and_dashboard_lineage():
    from datahub.emitter.mcp import MetadataChangeProposalWrapper

    stamps = models.ChangeAuditStampsClass()
    client._graph.emit(MetadataChangeProposalWrapper(entityUrn=CHART, aspect=models.ChartInfoClass(title="chart", description="", lastModified=stamps)))
    client._graph.emit(MetadataChangeProposalWrapper(entityUrn=DASHBOARD, aspect=models.DashboardInfoClass(title="dash", description="", lastModified=stamps)))
    client.lineage.add_lineage(upstream=A, downstream=CHART)
    client.lineage.add_lineage(upstream=CHART, downstream=DASHBOARD)
    client.lineage.add_lineage(upstream=B, downstream=DASHBOARD)
    info = client._graph.get_aspect(DASHBOARD, models.DashboardInfoClass)
    assert info.title == "dash" and [e.destinationUrn for e in info.chartEdges] == [CHART], info
    res = client.lineage.get_lineage(source_urn=A, direction="downstream", max_hops=2, filter=F.entity_type(["chart", "dashboard"]))
    got = sorted((r.urn, r.hops) for r in res)
    # The dashboard is reached through the chart (2) and through b (2); one shortest path each.
    assert got == [(CHART, 1), (DASHBOARD, 2)], got
    up = client.lineage.get_lineage(source_urn=DASHBOARD, direction="upstream", max_hops=1)
    assert sorted(r.urn for r in up) == sorted([CHART, B]), up
    return {"results": got}


run("entities.upsert/get", create_datasets)
run("add_lineage", add_lineage_chain)
run("add_dataset_copy_and_transform_lineage", deprecated_variants)
run("get_lineage downstream 2 hops platform filter", get_downstream_two_hops_platform)
run("get_lineage upstream", get_upstream)
run("get_lineage max_hops=3", get_max_hops_three)
run("get_lineage column", get_column)
run("entities.update/get with PATCH", entities_update_patch)
run("add_lineage chart and dashboard", chart_and_dashboard_lineage)
sys.exit(1 if failures else 0)
