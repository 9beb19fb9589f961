"""Custom assertions through the graph client and the assertion API the Airflow circuit breaker reads.

Usage: <venv>/bin/python assertions_check.py <service url> <token> <dataset urn>
Upserts a custom assertion on the dataset (and upserts it again, changed), reports a failure then a success, reads the
dataset's assertions and run events (datahub.api.graphql.Assertion), asks the assertion circuit breaker before and
after a last failure; prints one JSON object.
"""

import datetime
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
from datahub.api.circuit_breaker import AssertionCircuitBreaker, AssertionCircuitBreakerConfig
from datahub.api.graphql.assertion import Assertion
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata import schema_classes as m

url, token, dataset = sys.argv[1:4]
graph = DataHubGraph(DatahubClientConfig(server=url, token=token))
created = graph.upsert_custom_assertion(urn=None, entity_urn=dataset, type="Row count", description="rows > 0", platform_name="great-expectations", field_path="id", logic="select count(*) from t")
urn = created["urn"]
again = graph.upsert_custom_assertion(urn=urn, entity_urn=dataset, type="Row count", description="rows > 10", platform_urn="urn:li:dataPlatform:dbt", external_url="https://ci.example.com/checks/1")
now = int(time.time() * 1000)
graph.report_assertion_result(urn=urn, timestamp_millis=now - 60_000, type="FAILURE", properties=[{"key": "rows", "value": "0"}])
graph.report_assertion_result(urn=urn, timestamp_millis=now - 30_000, type="ERROR", error_type="SOURCE_QUERY_FAILED", error_message="timeout")
ok = graph.report_assertion_result(urn=urn, timestamp_millis=now, type="SUCCESS", properties=[{"key": "rows", "value": "42"}], severity="LOW")
info = graph.get_aspect(urn, m.AssertionInfoClass)
platform = graph.get_aspect(urn, m.DataPlatformInstanceClass)
events = Assertion(graph=graph).query_assertion(dataset)
breaker = AssertionCircuitBreaker(AssertionCircuitBreakerConfig(datahub_host=url, datahub_token=token, time_delta=datetime.timedelta(days=1)))
active = breaker.is_circuit_breaker_active(dataset)
graph.report_assertion_result(urn=urn, timestamp_millis=now + 1_000, type="FAILURE")
print(json.dumps({
    "same_urn": again["urn"] == urn,
    "info": {"type": info.type, "description": info.description, "externalUrl": info.externalUrl, "customType": info.customAssertion.type, "field": info.customAssertion.field, "logic": info.customAssertion.logic, "source": info.source.type},
    "platform": platform.platform,
    "reported": ok,
    "assertions": [{
        "total": a["runEvents"]["total"], "succeeded": a["runEvents"]["succeeded"], "failed": a["runEvents"]["failed"],
        "results": [[e["result"]["type"], [r["value"] for r in e["result"]["nativeResults"] or []], e["assertionUrn"] == urn] for e in a["runEvents"]["runEvents"]],
    } for a in events],
    "breaker_active": active,
    "breaker_active_after_a_failure": breaker.is_circuit_breaker_active(dataset),
}))
