"""The client's Operation API (datahub.api.graphql.Operation) and Airflow's operation circuit breaker over it.

Usage: <venv>/bin/python operations_check.py <service url> <token> <dataset urn>
Reports two operations (an INSERT of a partition, then an UPDATE by the platform), reads them back with and without
filters, asks the circuit breaker (one day back) and prints one JSON object.
"""

import datetime
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from datahub.api.circuit_breaker import OperationCircuitBreaker, OperationCircuitBreakerConfig
from datahub.api.graphql.operation import Operation

url, token, dataset = sys.argv[1:4]
api = Operation(datahub_host=url, datahub_token=token)
first = api.report_operation(dataset, operation_type="INSERT", partition="2026-11-30", num_affected_rows=120)
# Not custom_properties: the client sends them as an object where the schema (DataHub's too) has a list of entries.
second = api.report_operation(dataset, source_type="DATA_PLATFORM", operation_type="UPDATE")
keep = ("operationType", "sourceType", "numAffectedRows", "partition", "customProperties")
every = api.query_operations(dataset)
breaker = OperationCircuitBreaker(OperationCircuitBreakerConfig(datahub_host=url, datahub_token=token, time_delta=datetime.timedelta(days=1)))
print(json.dumps({
    "reported": [first, second],
    "all": [{k: o[k] for k in keep} for o in every],
    "actors": sorted({o["actor"] for o in every}),
    "inserts": [o["operationType"] for o in api.query_operations(dataset, operation_type="INSERT")],
    "partition": [o["operationType"] for o in api.query_operations(dataset, partition="2026-11-30")],
    "platform": [o["operationType"] for o in api.query_operations(dataset, source_type="DATA_PLATFORM")],
    "future": api.query_operations(dataset, start_time_millis=every[0]["timestampMillis"] + 60_000),
    "breaker_active": breaker.is_circuit_breaker_active(dataset),
    "breaker_active_for_a_drop": breaker.is_circuit_breaker_active(dataset, operation_type="DROP"),
}))
