"""Calls one method of the official DataHub Python client (acryl-datahub), unchanged, and prints its result as JSON.

Usage: <venv>/bin/python surface_check.py <service url> <call> '<json arguments>'

Calls: delete_references {urn, dry_run} · list_all_entity_urns {entity_type, start, count} · get_aspect_counts {aspect,
urn_like?} · emit_usage {buckets: [UsageAggregation as JSON]} · get_entity_aspect_specs {entity_type, aspects}.
Prints {"ok": true, "result": …} or {"ok": false, "error": …}; exits 1 on an error.
"""

import json
import sys
from typing import Any, Dict

from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata.schema_classes import UsageAggregationClass


def call(url: str, name: str, args: Dict[str, Any]) -> Any:
    graph = DataHubGraph(DatahubClientConfig(server=url))
    if name == "delete_references":
        total, related = graph.delete_references_to_urn(urn=args["urn"], dry_run=args["dry_run"])
        return {"total": total, "related": related}
    if name == "list_all_entity_urns":
        return graph.list_all_entity_urns(args["entity_type"], args["start"], args["count"])
    if name == "get_aspect_counts":
        return graph.get_aspect_counts(args["aspect"], args.get("urn_like"))
    if name == "emit_usage":
        emitter = DatahubRestEmitter(gms_server=url)
        for bucket in args["buckets"]:
            # emit() dispatches a UsageAggregation to emit_usage(), the deprecated /usageStats path.
            emitter.emit(UsageAggregationClass.from_obj(bucket))
        return len(args["buckets"])
    if name == "get_entity_aspect_specs":
        specs = graph.get_entity_aspect_specs()
        if specs is None:
            raise RuntimeError("get_entity_aspect_specs() answered None: the client could not read the specifications")
        return {
            "entity_types": len(specs.entity_aspects),
            "supports": {a: specs.supports(args["entity_type"], a) for a in args["aspects"]},
            "schema_version": specs.schema_version(args["aspects"][0]),
        }
    raise ValueError(f"unknown call {name}")


def main() -> int:
    url, name, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        result = call(url, name, json.loads(raw))
    except Exception as e:  # the client's own errors carry the server's message
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}), flush=True)
        return 1
    print(json.dumps({"ok": True, "result": result}, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
