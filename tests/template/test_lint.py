"""template.yaml passes SAM's validator and cfn-lint without a single error or warning."""

from __future__ import annotations

import tomllib

from tests.template.cfn import ROOT, TEMPLATE, load_template
from tests.template.tools import run_tool


def test_cfn_lint_reports_nothing() -> None:
    result = run_tool(["cfn-lint", "--format", "parseable", str(TEMPLATE)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_sam_validate_with_lint_passes() -> None:
    result = run_tool(
        ["sam", "validate", "--lint", "--region", "us-east-1", "--template-file", str(TEMPLATE)]
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is a valid SAM Template" in result.stdout + result.stderr


def test_samconfig_deploys_with_template_defaults_and_asks_only_the_site() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    deploy = config["default"]["deploy"]["parameters"]
    assert config["default"]["global"]["parameters"]["region"] == "us-east-1"
    assert deploy["capabilities"] == "CAPABILITY_IAM"
    assert deploy["resolve_s3"] is True
    # "Deploy this changeset? [y/N]" takes Enter for No: the deploy does not ask it
    # (tests/template/test_guided_deploy.py runs the deploy through to its execution)
    assert deploy["confirm_changeset"] is False
    # No overrides pinned here: every parameter but SiteUrl keeps its template default.
    assert "parameter_overrides" not in deploy
    params = load_template()["Parameters"]
    assert [name for name, spec in params.items() if "Default" not in spec] == ["SiteUrl"]
