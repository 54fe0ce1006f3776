"""The security scan of template.yaml: no failed check, and every skip still earns its place."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.template.cfn import ROOT, TEMPLATE
from tests.template.tools import run_tool

CONFIG = ROOT / ".checkov.yaml"


def scan(*extra: str, cwd: Path = ROOT) -> dict[str, Any]:
    result = run_tool(["checkov", "-f", str(TEMPLATE), "-o", "json", *extra], cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    # One framework gives one report; checkov returns a list when several ran.
    (cloudformation,) = [report] if isinstance(report, dict) else report
    assert cloudformation["check_type"] == "cloudformation"
    return dict(cloudformation)


def configured_skips() -> list[str]:
    return re.findall(r"^\s*-\s*(CKV2?_AWS_\d+)\s*$", CONFIG.read_text(encoding="utf-8"), re.M)


def test_every_skip_has_a_reason_comment_above_it() -> None:
    lines = CONFIG.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s*-\s*CKV", line):
            assert lines[i - 1].lstrip().startswith("#"), f"no reason above {line.strip()}"


@pytest.mark.slow
def test_checkov_passes_with_the_configured_skips() -> None:
    report = scan("--config-file", str(CONFIG))
    failed = [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]
    assert failed == []
    assert report["summary"]["parsing_errors"] == 0
    assert report["summary"]["passed"] > 0


@pytest.mark.slow
def test_each_configured_skip_matches_a_real_finding(tmp_path: Path) -> None:
    # Run from an empty directory: checkov would otherwise pick up ./.checkov.yaml itself.
    report = scan("--framework", "cloudformation", "--skip-download", cwd=tmp_path)
    findings = {c["check_id"] for c in report["results"]["failed_checks"]}
    assert findings == set(configured_skips())
