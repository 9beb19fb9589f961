"""Drives the official DataHub Python client (acryl-datahub), unchanged, against a running service.

Usage: <venv>/bin/python client_check.py <service url> <unique suffix>

Prints one JSON line per check: {"check": <name>, "ok": <bool>, "detail": ...}. The first line ("plan") lists the URNs
the checks write, so the caller can verify their effects and clean them up. Exits 1 when any check failed.
"""

import json
import sys
import time
import traceback
from typing import Any, Callable, Dict, List

from datahub.emitter.mce_builder import make_dataset_urn, make_tag_urn, make_user_urn
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata.schema_classes import (
    AuditStampClass,
    DatasetKeyClass,
    DatasetPropertiesClass,
    DatasetSnapshotClass,
    GlobalTagsClass,
    MetadataChangeEventClass,
    OwnerClass,
    OwnershipClass,
    OwnershipTypeClass,
    StatusClass,
    TagAssociationClass,
    TagPropertiesClass,
)

failures = 0


def report(check: str, ok: bool, **detail: Any) -> None:
    global failures
    if not ok:
        failures += 1
    print(json.dumps({"check": check, "ok": ok, **detail}, default=str), flush=True)


def run(check: str, body: Callable[[], Dict[str, Any]]) -> None:
    """Runs one check; it passes when body returns without raising (its dict becomes the detail)."""
    try:
        detail = body() or {}
        report(check, True, **detail)
    except AssertionError as e:
        report(check, False, error=str(e) or "assertion failed", trace=traceback.format_exc(limit=3))
    except Exception as e:  # the client's own errors (OperationalError carries the server's message)
        report(check, False, error=f"{type(e).__name__}: {e}", trace=traceback.format_exc(limit=5))


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def main() -> int:
    url, suffix = sys.argv[1], sys.argv[2]
    owner = make_user_urn(f"client_owner_{suffix}")
    tag = make_tag_urn(f"client_tag_{suffix}")
    urns = {
        "mcp": make_dataset_urn("hive", f"client_{suffix}.by_mcp", "PROD"),
        "mce": make_dataset_urn("hive", f"client_{suffix}.by_mce", "PROD"),
        "batch": make_dataset_urn("hive", f"client_{suffix}.by_batch", "PROD"),
        "never": make_dataset_urn("hive", f"client_{suffix}.never_written", "PROD"),
        "tag": tag,
        "owner": owner,
    }
    report("plan", True, urns=urns)

    emitter = DatahubRestEmitter(gms_server=url)
    graph = DataHubGraph(DatahubClientConfig(server=url))
    stamp = AuditStampClass(time=int(time.time() * 1000), actor="urn:li:corpuser:client_check")
    ownership = OwnershipClass(owners=[OwnerClass(owner=owner, type=OwnershipTypeClass.DATAOWNER)], lastModified=stamp)
    tags = GlobalTagsClass(tags=[TagAssociationClass(tag=tag)])

    def emitter_connection() -> Dict[str, Any]:
        emitter.test_connection()
        config = emitter.get_server_config()
        expect(config.get("noCode") == "true", f"noCode is {config.get('noCode')!r}")
        # The client must stay on the RPC ("Restli") transport: this service offers no OpenAPI ingestion.
        expect(not emitter._openapi_ingestion, "the emitter switched to OpenAPI ingestion")
        return {"config": config}

    def graph_connection() -> Dict[str, Any]:
        graph.test_connection()
        return {"openapi_ingestion": bool(graph._openapi_ingestion)}

    def emit_mcp() -> Dict[str, Any]:
        aspects = [
            DatasetPropertiesClass(name="by_mcp", description="first description", customProperties={"team": "core"}),
            ownership,
            StatusClass(removed=False),
            tags,
        ]
        for aspect in aspects:
            emitter.emit_mcp(MetadataChangeProposalWrapper(entityUrn=urns["mcp"], aspect=aspect))
        # A second value makes version 1 the previous one.
        emitter.emit_mcp(
            MetadataChangeProposalWrapper(
                entityUrn=urns["mcp"],
                aspect=DatasetPropertiesClass(name="by_mcp", description="second description é ✓", customProperties={"team": "core"}),
            )
        )
        return {"aspects": [a.ASPECT_NAME for a in aspects]}

    def emit_generic() -> Dict[str, Any]:
        # emit() dispatches on the item's type; an MCP goes through emit_mcp.
        emitter.emit(MetadataChangeProposalWrapper(entityUrn=tag, aspect=TagPropertiesClass(name=f"client_tag_{suffix}", description="made by emit()")))
        return {}

    def emit_mce() -> Dict[str, Any]:
        snapshot = DatasetSnapshotClass(
            urn=urns["mce"],
            aspects=[
                DatasetPropertiesClass(name="by_mce", description="from a snapshot"),
                ownership,
                StatusClass(removed=False),
            ],
        )
        emitter.emit_mce(MetadataChangeEventClass(proposedSnapshot=snapshot))
        return {}

    def emit_mcps() -> Dict[str, Any]:
        batch = MetadataChangeProposalWrapper.construct_many(
            entityUrn=urns["batch"],
            aspects=[DatasetPropertiesClass(name="by_batch", description="from a batch"), StatusClass(removed=False), tags],
        )
        emitter.emit_mcps(batch)
        return {"count": len(batch)}

    def get_aspect() -> Dict[str, Any]:
        props = graph.get_aspect(urns["mcp"], DatasetPropertiesClass)
        expect(props is not None, "datasetProperties not found")
        expect(props.description == "second description é ✓", f"latest description is {props.description!r}")
        expect(props.customProperties == {"team": "core"}, f"customProperties {props.customProperties!r}")
        owners = graph.get_aspect(urns["mcp"], OwnershipClass)
        expect(owners is not None and [o.owner for o in owners.owners] == [owner], f"ownership {owners}")
        expect(owners.owners[0].type == OwnershipTypeClass.DATAOWNER, f"owner type {owners.owners[0].type}")
        mce_props = graph.get_aspect(urns["mce"], DatasetPropertiesClass)
        expect(mce_props is not None and mce_props.description == "from a snapshot", f"MCE datasetProperties {mce_props}")
        batch_tags = graph.get_aspect(urns["batch"], GlobalTagsClass)
        expect(batch_tags is not None and [t.tag for t in batch_tags.tags] == [tag], f"batch globalTags {batch_tags}")
        tag_props = graph.get_aspect(tag, TagPropertiesClass)
        expect(tag_props is not None and tag_props.description == "made by emit()", f"tagProperties {tag_props}")
        return {"description": props.description}

    def get_aspect_version() -> Dict[str, Any]:
        first = graph.get_aspect(urns["mcp"], DatasetPropertiesClass, version=1)
        expect(first is not None and first.description == "first description", f"version 1 is {first}")
        return {"version1": first.description}

    def get_aspect_missing() -> Dict[str, Any]:
        missing = graph.get_aspect(urns["mce"], GlobalTagsClass)
        expect(missing is None, f"never-written globalTags returned {missing}")
        return {}

    def get_entity_raw() -> Dict[str, Any]:
        full = graph.get_entity_raw(urns["mcp"])
        names = sorted(full["aspects"].keys())
        for name in ["datasetKey", "datasetProperties", "ownership", "status", "globalTags"]:
            expect(name in names, f"{name} missing from {names}")
        expect(full["aspects"]["datasetProperties"]["value"]["description"] == "second description é ✓", "wrong datasetProperties value")
        some = graph.get_entity_raw(urns["mcp"], aspects=["ownership", "status"])
        picked = sorted(some["aspects"].keys())
        expect(set(picked) <= {"ownership", "status", "datasetKey"} and {"ownership", "status"} <= set(picked), f"aspects=List(...) gave {picked}")
        return {"aspects": names, "projected": picked}

    def exists() -> Dict[str, Any]:
        for key in ["mcp", "mce", "batch"]:
            expect(graph.exists(urns[key]) is True, f"exists({key}) is not True")
        expect(graph.exists(tag) is True, "exists(tag) is not True")
        expect(graph.exists(urns["never"]) is False, "exists(never written) is not False")
        return {}

    def key_aspect() -> Dict[str, Any]:
        key = graph.get_aspect(urns["mcp"], DatasetKeyClass)
        expect(key is not None and key.name == f"client_{suffix}.by_mcp" and key.origin == "PROD", f"datasetKey {key}")
        expect(key.platform == "urn:li:dataPlatform:hive", f"datasetKey platform {key.platform}")
        return {}

    def related_entities() -> Dict[str, Any]:
        incoming = list(graph.get_related_entities(owner, ["OwnedBy"], DataHubGraph.RelationshipDirection.INCOMING))
        sources = sorted(r.urn for r in incoming)
        expect(sources == sorted([urns["mcp"], urns["mce"]]), f"INCOMING OwnedBy of the owner: {sources}")
        expect(all(r.relationship_type == "OwnedBy" for r in incoming), f"relationship types {incoming}")
        outgoing = list(graph.get_related_entities(urns["batch"], ["TaggedWith"], DataHubGraph.RelationshipDirection.OUTGOING))
        expect([r.urn for r in outgoing] == [tag], f"OUTGOING TaggedWith of the batch dataset: {outgoing}")
        return {"incoming": sources}

    def soft_delete() -> Dict[str, Any]:
        graph.delete_entity(urns["mce"], hard=False)
        status = graph.get_aspect(urns["mce"], StatusClass)
        expect(status is not None and status.removed is True, f"status after soft delete {status}")
        expect(graph.exists(urns["mce"]) is True, "a soft-deleted entity must still exist")
        return {}

    def hard_delete() -> Dict[str, Any]:
        graph.delete_entity(urns["batch"], hard=True)
        expect(graph.exists(urns["batch"]) is False, "exists() after hard delete is not False")
        expect(graph.get_aspect(urns["batch"], DatasetPropertiesClass) is None, "datasetProperties survived the hard delete")
        rows, ts_rows = graph.hard_delete_entity(urns["never"])
        return {"rows_of_never_written": rows, "timeseries_rows_of_never_written": ts_rows}

    checks: List[tuple] = [
        ("emitter.test_connection", emitter_connection),
        ("graph.test_connection", graph_connection),
        ("emitter.emit_mcp", emit_mcp),
        ("emitter.emit", emit_generic),
        ("emitter.emit_mce", emit_mce),
        ("emitter.emit_mcps", emit_mcps),
        ("graph.get_aspect", get_aspect),
        ("graph.get_aspect(version=1)", get_aspect_version),
        ("graph.get_aspect(missing)", get_aspect_missing),
        ("graph.get_aspect(key)", key_aspect),
        ("graph.get_entity_raw", get_entity_raw),
        ("graph.exists", exists),
        ("graph.get_related_entities", related_entities),
        ("graph.delete_entity(hard=False)", soft_delete),
        ("graph.delete_entity(hard=True)", hard_delete),
    ]
    for name, body in checks:
        run(name, body)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
