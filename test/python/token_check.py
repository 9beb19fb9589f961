"""Drives the official DataHub Python client, unchanged, against a service that requires access tokens.

Usage: <venv>/bin/python token_check.py <service url> <token> <unique suffix>

Prints one JSON line per check, as client_check.py does; the first line ("plan") lists the URNs the checks write.
Exits 1 when any check failed.
"""

import json
import sys
import traceback
from typing import Any, Callable, Dict

from datahub.emitter.mce_builder import make_dataset_urn
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata.schema_classes import DatasetPropertiesClass, StatusClass

failures = 0


def report(check: str, ok: bool, **detail: Any) -> None:
    global failures
    if not ok:
        failures += 1
    print(json.dumps({"check": check, "ok": ok, **detail}, default=str), flush=True)


def run(check: str, body: Callable[[], Dict[str, Any]]) -> None:
    try:
        report(check, True, **(body() or {}))
    except Exception as e:
        report(check, False, error=f"{type(e).__name__}: {e}", trace=traceback.format_exc(limit=5))


def refused(check: str, call: Callable[[], Any]) -> None:
    """The call must fail, and the failure must say 401 (the client surfaces the service's status or message)."""
    try:
        call()
    except Exception as e:
        text = f"{type(e).__name__}: {e} {getattr(e, 'info', '')}"
        report(check, "401" in text or "Missing access token" in text, error=text[:2000])
        return
    report(check, False, error="the call succeeded without a token")


def main() -> int:
    url, token, suffix = sys.argv[1], sys.argv[2], sys.argv[3]
    urns = {
        "emitted": make_dataset_urn("hive", f"token_{suffix}.emitted", "PROD"),
        "anonymous": make_dataset_urn("hive", f"token_{suffix}.anonymous", "PROD"),
        "deleted": make_dataset_urn("hive", f"token_{suffix}.deleted", "PROD"),
    }
    report("plan", True, urns=urns)

    anonymous_emitter = DatahubRestEmitter(gms_server=url)
    emitter = DatahubRestEmitter(gms_server=url, token=token)
    graph = DataHubGraph(DatahubClientConfig(server=url, token=token))
    anonymous_graph = DataHubGraph(DatahubClientConfig(server=url))

    def properties(urn: str, description: str) -> MetadataChangeProposalWrapper:
        return MetadataChangeProposalWrapper(entityUrn=urn, aspect=DatasetPropertiesClass(name=urn.split(",")[1], description=description))

    refused("emitter(no token).emit_mcp refused", lambda: anonymous_emitter.emit_mcp(properties(urns["anonymous"], "never stored")))

    def emit() -> Dict[str, Any]:
        emitter.test_connection()
        emitter.emit_mcp(properties(urns["emitted"], "emitted with token="))
        emitter.emit_mcps([properties(urns["deleted"], "to be deleted"), MetadataChangeProposalWrapper(entityUrn=urns["deleted"], aspect=StatusClass(removed=False))])
        return {}

    run("emitter(token=).emit_mcp", emit)

    def read() -> Dict[str, Any]:
        stored = graph.get_aspect(urns["emitted"], DatasetPropertiesClass)
        assert stored is not None and stored.description == "emitted with token=", f"got {stored}"
        assert graph.exists(urns["deleted"]), "the emit_mcps entity does not exist"
        raw = graph.get_entity_raw(urns["emitted"], ["datasetProperties"])
        assert "datasetProperties" in raw["aspects"], f"get_entity_raw: {raw}"
        return {}

    run("graph(token=).get_aspect", read)
    refused("graph(no token).get_aspect refused", lambda: anonymous_graph.get_aspect(urns["emitted"], DatasetPropertiesClass))
    refused("graph(no token).delete_entity refused", lambda: anonymous_graph.delete_entity(urns["emitted"], hard=True))

    def delete() -> Dict[str, Any]:
        graph.delete_entity(urns["deleted"], hard=False)
        status = graph.get_aspect(urns["deleted"], StatusClass)
        assert status is not None and status.removed, f"status after soft delete: {status}"
        graph.delete_entity(urns["deleted"], hard=True)
        assert not graph.exists(urns["deleted"]), "still exists after the hard delete"
        return {}

    run("graph(token=).delete_entity", delete)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
