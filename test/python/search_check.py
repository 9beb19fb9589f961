"""Drives the official client's search and bulk reads, unchanged, against the service: SDK v2 client.search.get_urns
with filters, the graph client's get_urns_by_filter (status variants, structured properties), get_entities, scroll_entities,
scroll_relationships, scroll_lineage, the rest.li batch get the CLI's migrate command sends, `datahub search` and
`datahub delete` by platform / entity type (dry run, then a real hard delete).

Usage: <venv>/bin/python search_check.py <service url> <token> <unique suffix>

Prints one JSON line per check: {"check": <name>, "ok": <bool>, ...}; the first line ("plan") lists the URNs written.
Exits 1 when any check failed.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Iterable, Set

from datahub.cli.migrate import _batch_get_ids
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.graph.filters import RemovedStatusFilter
from datahub.metadata import schema_classes as models
from datahub.sdk.chart import Chart
from datahub.sdk.dataset import Dataset
from datahub.sdk.main_client import DataHubClient
from datahub.sdk.search_filters import FilterDsl as F

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
graph = client._graph

# Platforms of their own, so every search below is scoped to this run's entities.
P, Q = f"p{suffix}", f"q{suffix}"
ORDERS = f"urn:li:dataset:(urn:li:dataPlatform:{P},{suffix}.orders,PROD)"
CUSTOMERS = f"urn:li:dataset:(urn:li:dataPlatform:{P},{suffix}.customers,DEV)"
LEGACY = f"urn:li:dataset:(urn:li:dataPlatform:{P},{suffix}.legacy,PROD)"
EVENTS = f"urn:li:dataset:(urn:li:dataPlatform:{Q},{suffix}.events,PROD)"
REVENUE = f"urn:li:chart:({P},{suffix}.revenue)"
OUTER = f"urn:li:container:{suffix}outer"
INNER = f"urn:li:container:{suffix}inner"
ALICE = f"urn:li:corpuser:{suffix}alice"
DOMAIN = f"urn:li:domain:{suffix}"
TAG = f"urn:li:tag:{suffix}pii"
ON_P = {ORDERS, CUSTOMERS, REVENUE}
print(json.dumps({"check": "plan", "ok": True, "urns": [ORDERS, CUSTOMERS, LEGACY, EVENTS, REVENUE]}), flush=True)


def eventually(fn: Callable[[], Any], expected: Any, timeout: float = 20.0) -> Any:
    """Search is a derived index: retries until it shows the expected answer (or gives the last one)."""
    deadline = time.time() + timeout
    while True:
        got = fn()
        if got == expected or time.time() > deadline:
            return got
        time.sleep(0.3)


def urns(found: Iterable[Any]) -> Set[str]:
    return {str(u) for u in found}


def seed():
    client.entities.upsert(
        Dataset(
            platform=P,
            name=f"{suffix}.orders",
            env="PROD",
            description="orders placed",
            tags=[TAG],
            owners=[ALICE],
            domain=DOMAIN,
            parent_container=[OUTER, INNER],
            custom_properties={"team": "sales"},
        )
    )
    client.entities.upsert(Dataset(platform=P, name=f"{suffix}.customers", env="DEV", description="customer list"))
    client.entities.upsert(Dataset(platform=P, name=f"{suffix}.legacy", env="PROD"))
    client.entities.upsert(Dataset(platform=Q, name=f"{suffix}.events", env="PROD"))
    client.entities.upsert(Chart(platform=P, name=f"{suffix}.revenue", description="revenue by month"))
    graph.soft_delete_entity(LEGACY)
    client.lineage.add_lineage(upstream=ORDERS, downstream=CUSTOMERS)
    got = eventually(lambda: urns(graph.get_urns_by_filter(platform=P, status=RemovedStatusFilter.ALL)), ON_P | {LEGACY})
    assert got == ON_P | {LEGACY}, got
    # The soft delete is a later revision of LEGACY: searchable once the default (not soft-deleted) view leaves it out.
    got = eventually(lambda: urns(graph.get_urns_by_filter(platform=P)), ON_P)
    assert got == ON_P, got
    # The lineage write above re-indexes CUSTOMERS; wait until that revision is searchable too.
    got = eventually(lambda: urns(graph.get_urns_by_filter(platform=P, query="customer")), {CUSTOMERS})
    return {}


def by_filter_platform():
    got = urns(graph.get_urns_by_filter(platform=P))
    assert got == ON_P, got
    got = urns(graph.get_urns_by_filter(platform=[P, Q]))
    assert got == ON_P | {EVENTS}, got
    got = urns(graph.get_urns_by_filter(platform=P, entity_types=["dataset"]))
    assert got == {ORDERS, CUSTOMERS}, got
    # Charts have no environment: an env filter leaves them out, as in DataHub.
    got = urns(graph.get_urns_by_filter(platform=P, env="PROD"))
    assert got == {ORDERS}, got
    return {}


def by_filter_status():
    got = {s.value: urns(graph.get_urns_by_filter(platform=P, status=s)) for s in RemovedStatusFilter}
    assert got["NOT_SOFT_DELETED"] == ON_P, got
    assert got["ALL"] == ON_P | {LEGACY}, got
    assert got["ONLY_SOFT_DELETED"] == {LEGACY}, got
    return {k: sorted(v) for k, v in got.items()}


def by_filter_paging_query_extra():
    # batch_size 1: every page but the last hands back a scroll id.
    got = list(graph.get_urns_by_filter(platform=P, batch_size=1))
    assert sorted(got) == sorted(ON_P), got
    got = urns(graph.get_urns_by_filter(platform=P, query="placed"))
    assert got == {ORDERS}, got
    got = urns(graph.get_urns_by_filter(platform=P, extraFilters=[{"field": "tags", "values": [TAG], "condition": "EQUAL"}]))
    assert got == {ORDERS}, got
    got = urns(graph.get_urns_by_filter(platform=P, container=OUTER))
    assert got == {ORDERS}, got
    return {}


def structured_property_filters():
    # DataHub's field for a property is structuredProperties.<qualified name, dots as underscores>; clients also name it
    # by the qualified name itself, or with .keyword after it.
    sla, tier = f"io.{suffix}.replicationSLA", f"io.{suffix}.tier"
    for fqn, value_type in ((sla, "number"), (tier, "string")):
        graph.emit(MetadataChangeProposalWrapper(entityUrn=f"urn:li:structuredProperty:{fqn}", aspect=models.StructuredPropertyDefinitionClass(
            qualifiedName=fqn, valueType=f"urn:li:dataType:datahub.{value_type}", entityTypes=["urn:li:entityType:datahub.dataset"])))
    for urn, days, level in ((ORDERS, 30, "gold"), (CUSTOMERS, 7.5, "silver")):
        graph.emit(MetadataChangeProposalWrapper(entityUrn=urn, aspect=models.StructuredPropertiesClass(properties=[
            models.StructuredPropertyValueAssignmentClass(propertyUrn=f"urn:li:structuredProperty:{sla}", values=[days]),
            models.StructuredPropertyValueAssignmentClass(propertyUrn=f"urn:li:structuredProperty:{tier}", values=[level]),
        ])))

    def by(field, condition, values=(), negated=False, **kw):
        return urns(graph.get_urns_by_filter(platform=P, extraFilters=[{"field": field, "condition": condition, "values": list(values), "negated": negated}], **kw))

    sla_field, tier_field = f"structuredProperties.io_{suffix}_replicationSLA", f"structuredProperties.io_{suffix}_tier"
    got = eventually(lambda: by(sla_field, "EXISTS"), {ORDERS, CUSTOMERS})
    assert got == {ORDERS, CUSTOMERS}, got
    cases = {
        "not EXISTS": (by(sla_field, "EXISTS", negated=True), {REVENUE}),
        "EXISTS, charts only": (by(sla_field, "EXISTS", entity_types=["chart"]), set()),
        "EQUAL string": (by(tier_field, "EQUAL", ["gold"]), {ORDERS}),
        "EQUAL by qualified name": (by(f"structuredProperties.{tier}", "EQUAL", ["silver"]), {CUSTOMERS}),
        "EQUAL .keyword": (by(f"{tier_field}.keyword", "EQUAL", ["gold", "silver"]), {ORDERS, CUSTOMERS}),
        "EQUAL number": (by(sla_field, "EQUAL", ["7.5"]), {CUSTOMERS}),
        "GREATER_THAN number": (by(sla_field, "GREATER_THAN", ["10"]), {ORDERS}),
        "sdk custom_filter": (urns(client.search.get_urns(filter=F.and_(F.platform(P), F.custom_filter(tier_field, "EQUAL", ["gold"])))), {ORDERS}),
    }
    for name, (got, expected) in cases.items():
        assert got == expected, (name, got)
    return {"cases": len(cases) + 1}


def sdk_search():
    cases = {
        "platform": (F.platform(P), ON_P),
        "platform and entity_type": (F.and_(F.platform(P), F.entity_type("dataset")), {ORDERS, CUSTOMERS}),
        "platform and env": (F.and_(F.platform(P), F.env("PROD")), {ORDERS}),
        "not chart": (F.and_(F.platform(P), F.not_(F.entity_type("chart"))), {ORDERS, CUSTOMERS}),
        "or": (F.or_(F.platform(Q), F.and_(F.platform(P), F.env("DEV"))), {EVENTS, CUSTOMERS}),
        "custom CONTAIN": (F.and_(F.platform(P), F.custom_filter("urn", "CONTAIN", ["orders"])), {ORDERS}),
        "custom IN": (F.and_(F.platform(P), F.custom_filter("origin", "IN", ["DEV", "QA"])), {CUSTOMERS}),
        "custom START_WITH": (F.and_(F.platform(P), F.custom_filter("urn", "START_WITH", ["urn:li:chart:"])), {REVENUE}),
        "custom property": (F.and_(F.platform(P), F.has_custom_property("team", "sales")), {ORDERS}),
        "tag": (F.and_(F.platform(P), F.tag(TAG)), {ORDERS}),
        "owner": (F.and_(F.platform(P), F.owner(ALICE)), {ORDERS}),
        "domain": (F.and_(F.platform(P), F.domain(DOMAIN)), {ORDERS}),
        "container": (F.and_(F.platform(P), F.container(OUTER)), {ORDERS}),
        "direct container": (F.and_(F.platform(P), F.container(INNER, direct_descendants_only=True)), {ORDERS}),
        "not direct container": (F.and_(F.platform(P), F.container(OUTER, direct_descendants_only=True)), set()),
        "only soft-deleted": (F.and_(F.platform(P), F.soft_deleted(RemovedStatusFilter.ONLY_SOFT_DELETED)), {LEGACY}),
        "env or env": (F.and_(F.platform(P), F.env(["DEV", "PROD"])), {ORDERS, CUSTOMERS}),
    }
    results = {}
    for name, (flt, expected) in cases.items():
        got = urns(client.search.get_urns(filter=flt))
        results[name] = sorted(got)
        assert got == expected, (name, got)
    got = urns(client.search.get_urns(query="customer", filter=F.platform(P)))
    assert got == {CUSTOMERS}, got
    return {"cases": len(cases)}


def get_entities():
    missing = f"urn:li:dataset:(urn:li:dataPlatform:{P},{suffix}.missing,PROD)"
    got = graph.get_entities("dataset", [ORDERS, missing], ["globalTags", "datasetKey", "status"], with_system_metadata=True)
    assert list(got) == [ORDERS], got
    aspects = got[ORDERS]
    assert set(aspects) == {"globalTags", "datasetKey"}, aspects
    tags, meta = aspects["globalTags"]
    assert [t.tag for t in tags.tags] == [TAG] and meta is not None and meta.properties.get("clientId") == "acryl-datahub", aspects
    key, _ = aspects["datasetKey"]
    assert (key.platform, key.name, key.origin) == (f"urn:li:dataPlatform:{P}", f"{suffix}.orders", "PROD"), key
    every = graph.get_entities("chart", [REVENUE])
    assert "chartInfo" in every[REVENUE] and every[REVENUE]["chartInfo"][0].title == f"{suffix}.revenue", every
    return {}


def batch_get():
    got = list(_batch_get_ids(graph, [ORDERS, CUSTOMERS]))
    assert sorted(e["urn"] for e in got) == sorted([ORDERS, CUSTOMERS]), got
    orders = next(e for e in got if e["urn"] == ORDERS)
    assert orders["entityName"] == "dataset", orders
    assert orders["aspects"]["globalTags"]["value"] == {"tags": [{"tag": TAG}]}, orders["aspects"]["globalTags"]
    assert orders["aspects"]["datasetKey"]["value"]["origin"] == "PROD", orders
    return {}


def scroll_entities():
    rule = {"field": "platform", "values": [f"urn:li:dataPlatform:{P}"], "condition": "EQUAL"}
    seen, scroll_id, pages = [], None, 0
    while True:
        page = graph.scroll_entities(entity_names=["dataset"], aspects=["datasetKey"], count=1, scroll_id=scroll_id, filter=[{"and": [rule]}])
        pages += 1
        assert page.total_count == 2, page
        for urn, aspects in page.entities.items():
            seen.append(urn)
            assert aspects["datasetKey"][0].name in (f"{suffix}.orders", f"{suffix}.customers"), aspects
        scroll_id = page.scroll_id
        if not scroll_id:
            break
    assert sorted(seen) == sorted([ORDERS, CUSTOMERS]) and pages == 2, (seen, pages)
    return {"pages": pages}


def scroll_relationships():
    got = graph.scroll_relationships(source_urns=[ORDERS], relationship_types=["TaggedWith"])
    assert [(r.relationship_type, r.source_urn, r.source_entity_type, r.destination_urn, r.destination_entity_type) for r in got.relationships] == [
        ("TaggedWith", ORDERS, "dataset", TAG, "tag")
    ], got
    assert got.scroll_id is None, got
    owned = graph.scroll_relationships(destination_urns=[ALICE], relationship_types=["OwnedBy"])
    assert [(r.source_urn, r.destination_urn) for r in owned.relationships] == [(ORDERS, ALICE)], owned
    return {}


def scroll_lineage():
    got = graph.scroll_lineage(urns=[ORDERS])
    edges = [(r.relationship_type, r.source_urn, r.destination_urn, r.upstream_urn, r.downstream_urn) for r in got.relationships]
    assert edges == [("DownstreamOf", CUSTOMERS, ORDERS, ORDERS, CUSTOMERS)], edges
    down = graph.scroll_lineage(urns=[ORDERS], direction=graph.LineageDirection.DOWNSTREAM)
    assert [r.downstream_urn for r in down.relationships] == [CUSTOMERS], down
    up = graph.scroll_lineage(urns=[ORDERS], direction=graph.LineageDirection.UPSTREAM)
    assert up.relationships == [], up
    return {}


def cli(*args: str) -> subprocess.CompletedProcess:
    home = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")}
    env.update(HOME=home, DATAHUB_GMS_URL=url, DATAHUB_GMS_TOKEN=token, DATAHUB_SKIP_CONFIG="true", DATAHUB_TELEMETRY_ENABLED="false")
    exe = os.path.join(os.path.dirname(sys.executable), "datahub")
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=300)


def cli_search():
    res = cli("search", "*", "--filter", f"platform={P}", "--format", "json")
    assert res.returncode == 0, res.stderr[-1500:]
    body = json.loads(res.stdout)
    assert body["total"] == 3 and body["count"] == 3, body
    assert {r["entity"]["urn"] for r in body["searchResults"]} == ON_P, body
    orders = next(r["entity"] for r in body["searchResults"] if r["entity"]["urn"] == ORDERS)
    assert orders["type"] == "DATASET" and orders["name"] == f"{suffix}.orders" and orders["origin"] == "PROD", orders
    assert orders["platform"]["name"] == P and orders["properties"]["customProperties"] == [{"key": "team", "value": "sales"}], orders
    assert [t["tag"]["urn"] for t in orders["tags"]["tags"]] == [TAG], orders["tags"]
    assert [o["owner"]["urn"] for o in orders["ownership"]["owners"]] == [ALICE], orders["ownership"]
    assert orders["domain"]["domain"]["urn"] == DOMAIN and orders["container"]["urn"] == INNER, orders
    facets = {f["field"]: {a["value"]: a["count"] for a in f["aggregations"]} for f in body["facets"]}
    assert facets["_entityType"] == {"DATASET": 2, "CHART": 1}, facets
    # A facet counts under the filter without its own criteria (other platforms show what choosing them would give;
    # the CLI asks for the top 5 only, so which others appear depends on what else the catalog holds).
    # P is among them only when the catalog holds fewer than five platforms with more entities.
    assert facets["platform"].get(f"urn:li:dataPlatform:{P}", 3) == 3, facets
    assert facets["origin"] == {"PROD": 1, "DEV": 1} and facets["tags"] == {TAG: 1} and facets["owners"] == {ALICE: 1}, facets
    res = cli("search", "*", "--filter", f"platform={P}", "--filter", "entity_type=dataset", "--urns-only")
    assert res.returncode == 0 and set(res.stdout.split()) == {ORDERS, CUSTOMERS}, (res.stdout, res.stderr[-1500:])
    res = cli("search", "*", "--where", f"platform = {P} AND env = DEV", "--urns-only")
    assert res.returncode == 0 and res.stdout.split() == [CUSTOMERS], (res.stdout, res.stderr[-1500:])
    return {}


def cli_delete_dry_run():
    res = cli("delete", "--platform", P, "--dry-run")
    assert res.returncode == 0, res.stderr[-1500:]
    out = res.stdout
    assert "Found urns of multiple entity types" in out and "- 2 dataset urn(s)" in out and "- 1 chart urn(s)" in out, out
    assert ORDERS in out and CUSTOMERS in out and REVENUE in out and LEGACY not in out, out
    assert "[Dry-run] Would delete 3 entities" in out, out
    # A hard delete also takes soft-deleted entities.
    res = cli("delete", "--platform", P, "--hard", "--dry-run")
    assert res.returncode == 0 and "- 3 dataset urn(s)" in res.stdout and LEGACY in res.stdout, res.stdout + res.stderr[-1500:]
    res = cli("delete", "--entity-type", "chart", "--platform", P, "--dry-run")
    assert res.returncode == 0 and f"Found 1 chart urn(s). Sample: ['{REVENUE}']" in res.stdout, res.stdout + res.stderr[-1500:]
    res = cli("delete", "--entity-type", "dataset", "--platform", P, "--env", "DEV", "--dry-run")
    assert res.returncode == 0 and f"Found 1 dataset urn(s). Sample: ['{CUSTOMERS}']" in res.stdout, res.stdout + res.stderr[-1500:]
    # Nothing was deleted.
    assert urns(graph.get_urns_by_filter(platform=P)) == ON_P
    return {}


def cli_hard_delete_by_platform():
    res = cli("delete", "--platform", Q, "--hard", "-f")
    assert res.returncode == 0 and "Hard deleted 1 entities" in res.stdout, res.stdout + res.stderr[-1500:]
    assert not graph.exists(EVENTS), "events still exists"
    assert graph.get_entities("dataset", [EVENTS]) == {}
    got = eventually(lambda: urns(graph.get_urns_by_filter(platform=[P, Q], status=RemovedStatusFilter.ALL)), ON_P | {LEGACY})
    assert got == ON_P | {LEGACY}, got
    for urn in (ORDERS, CUSTOMERS, LEGACY, REVENUE):
        assert graph.exists(urn), urn
    return {}


run("seed", seed)
run("get_urns_by_filter platform, entity type, env", by_filter_platform)
run("get_urns_by_filter status variants", by_filter_status)
run("get_urns_by_filter paging, query, extra filters, container", by_filter_paging_query_extra)
run("get_urns_by_filter structured properties", structured_property_filters)
run("sdk search.get_urns filters", sdk_search)
run("get_entities", get_entities)
run("entitiesV2 batch get", batch_get)
run("scroll_entities", scroll_entities)
run("scroll_relationships", scroll_relationships)
run("scroll_lineage", scroll_lineage)
run("datahub search", cli_search)
run("datahub delete dry run", cli_delete_dry_run)
run("datahub delete --hard by platform", cli_hard_delete_by_platform)
sys.exit(1 if failures else 0)
