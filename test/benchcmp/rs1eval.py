"""RS-1's own evaluator over a JSON Lines file of traces, for test/benchcmp.

    python3 -B rs1eval.py RS1_CHECKOUT TRACES.jsonl [--reports] > REPORTS.jsonl

RS-1's CLI (python -m rs1.cli) evaluates one trace file per process; starting Python once per
trace would measure the interpreter's start, not the evaluator. This does per line what the CLI
does per file, with RS-1's own functions: json.load, rs1.cli._parse_trace_dict and
rs1.core.evaluator.evaluate_trace; with --reports, also what the CLI then does with the report:
json.dump(report.to_dict(), sys.stdout) and a newline. The exit code is the CLI's for the worst
verdict: 2 for a FAIL, 1 for a WARN, else 0.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])

from rs1.cli import _parse_trace_dict  # noqa: E402
from rs1.core.evaluator import evaluate_trace  # noqa: E402

reports = sys.argv[3:] == ["--reports"]
worst = 0
codes = {"FAIL": 2, "WARN": 1}
with open(sys.argv[2], encoding="utf-8") as traces:
    for line in traces:
        report = evaluate_trace(_parse_trace_dict(json.loads(line)))
        if reports:
            json.dump(report.to_dict(), sys.stdout)
            sys.stdout.write("\n")
        worst = max(worst, codes.get(report.verdict.value, 0))
sys.exit(worst)
