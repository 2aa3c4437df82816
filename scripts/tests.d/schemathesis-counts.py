"""Prints "passed failed" API operations from a Schemathesis JSON report (scripts/tests.d/schemathesis.sh).

An operation fails when any check failed on it; each Schemathesis runtime error counts as one
more failed operation, so an error is never silently a pass. No report (the run did not start)
is one failure.
"""
import json
import sys

try:
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
except (OSError, ValueError):
    print(0, 1)
    sys.exit(0)

failed_ops = {op for failure in report.get("failures") or [] for op in failure.get("operations", [])}
errors = sum(e.get("count", 1) for e in report.get("errors") or [])
tested = (report.get("operations") or {}).get("tested", 0)
failed = len(failed_ops) + errors
print(max(tested - failed, 0), failed)
