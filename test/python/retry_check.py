"""Checks that the official emitter (DatahubRestEmitter, default settings) rides out an overloaded service: the
service answers 429/503 with Retry-After, the emitter's own retry policy waits and sends again, and every write lands.

Usage: <venv>/bin/python retry_check.py <service url> <unique suffix> <threads> <writes per thread>

Prints one JSON line: {"check": "retry", "ok": ..., "urns": [...], "acknowledged": n, "failed": n,
"retried_429": n, "retries": n, "errors": [...]}. The caller checks that the service stored every urn.
"""

import json
import logging
import sys
import threading

from datahub.emitter.mce_builder import make_dataset_urn
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.metadata.schema_classes import DatasetPropertiesClass


class RetryCounter(logging.Handler):
    """Counts the retries the client logs: the emitter logs a line per 429, urllib3 "Retry: <url>" per retry of any status."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.after_429 = 0
        self.retries = 0

    def emit(self, record: logging.LogRecord) -> None:
        # Handler.handle holds the handler's lock around emit, so counting needs no lock of its own.
        message = record.getMessage()
        if message.startswith("Retrying after 429"):
            self.after_429 += 1
        elif message.startswith("Retry: "):
            self.retries += 1


def main() -> int:
    url, suffix, threads, per_thread = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    counter = RetryCounter()
    for name in ("datahub.emitter.rest_emitter", "urllib3.connectionpool"):
        log = logging.getLogger(name)
        log.setLevel(logging.DEBUG)
        log.addHandler(counter)

    urns = [make_dataset_urn("hive", f"retry_{suffix}.t{t}_{i}") for t in range(threads) for i in range(per_thread)]
    start = threading.Barrier(threads)
    lock = threading.Lock()
    acknowledged = 0
    errors = []

    def writer(t: int) -> None:
        nonlocal acknowledged
        emitter = DatahubRestEmitter(url)
        start.wait()
        for i in range(per_thread):
            urn = urns[t * per_thread + i]
            try:
                emitter.emit_mcp(MetadataChangeProposalWrapper(entityUrn=urn, aspect=DatasetPropertiesClass(name=f"t{t}_{i}")))
                with lock:
                    acknowledged += 1
            except Exception as e:  # the emitter gave up: its retries ran out
                with lock:
                    errors.append(f"{type(e).__name__}: {str(e)[:300]}")

    workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()

    ok = acknowledged == len(urns) and counter.after_429 > 0
    print(
        json.dumps(
            {
                "check": "retry",
                "ok": ok,
                "urns": urns,
                "acknowledged": acknowledged,
                "failed": len(errors),
                "retried_429": counter.after_429,
                "retries": counter.retries,
                "errors": errors[:5],
            }
        ),
        flush=True,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
