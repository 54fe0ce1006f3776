"""The deploy page names parameters and stack outputs the template really has."""

from __future__ import annotations

import re

from tests.template.cfn import ROOT, load_template

README = (ROOT / "README.md").read_text(encoding="utf-8")
DEPLOY = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
PAGES = [README, *(page.read_text(encoding="utf-8") for page in (ROOT / "docs").glob("*.md"))]


def test_deploy_names_existing_outputs() -> None:
    named = set(re.findall(r"stack output\s+`([A-Za-z0-9]+)`", DEPLOY))
    assert {"BucketRegionalDomainName", "OriginAccessControlId", "CachePolicyId"} <= named
    assert named <= set(load_template()["Outputs"])


def test_every_output_a_page_names_or_queries_exists() -> None:
    text = "\n".join(PAGES)
    named = set(re.findall(r"stack output\s+`([A-Za-z0-9]+)`", text))
    queried = set(re.findall(r"OutputKey=='([A-Za-z0-9]+)'", text))
    assert {"QueueUrl", "SitemapIndexUrl", "QueueArn"} <= named
    assert {"QueueUrl", "BucketName", "TableName"} <= queried
    assert named | queried <= set(load_template()["Outputs"])


def test_deploy_sets_existing_parameters_to_allowed_values() -> None:
    params = load_template()["Parameters"]
    settings = re.findall(r"`([A-Za-z0-9]+)=([^`<]*)", DEPLOY)
    assert {name for name, _ in settings} >= {"SiteDistributionId", "PublishRobotsTxt"}
    for name, value in settings:
        assert name in params, name
        allowed = params[name].get("AllowedValues")
        if value and allowed:
            assert value in [str(v) for v in allowed], (name, value)


def test_every_parameter_is_in_the_configuration_table() -> None:
    table = CONFIGURATION[: CONFIGURATION.index("\n\n", CONFIGURATION.index("| parameter |"))]
    missing = set(load_template()["Parameters"]) - set(re.findall(r"`([A-Za-z0-9]+)`", table))
    assert not missing, missing


def test_teardown_states_the_template_deletion_policies() -> None:
    resources = load_template()["Resources"]
    assert resources["Table"]["DeletionPolicy"] == "Retain"
    assert resources["Table"]["UpdateReplacePolicy"] == "Retain"
    assert resources["Bucket"]["DeletionPolicy"] == "Delete"
    assert resources["Bucket"]["Properties"]["VersioningConfiguration"]["Status"] == "Enabled"
    teardown = DEPLOY[DEPLOY.index("## Teardown") :]
    assert "The URL table stays" in teardown and "`DeletionPolicy: Retain`" in teardown
    assert "versioned" in teardown
    # the producer page's claim that no KMS permission is needed
    for queue in ("Queue", "DeadLetterQueue"):
        assert resources[queue]["Properties"]["SqsManagedSseEnabled"] is True
        assert "KmsMasterKeyId" not in resources[queue]["Properties"]
