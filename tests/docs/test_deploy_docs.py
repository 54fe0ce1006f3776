"""The deploy page names parameters and stack outputs the template really has, and what it says
of the quota, the layer, `max-age`, the guided deploy's questions and the alarms is what the
template and the code say."""

from __future__ import annotations

import re
import tomllib

from packaging.utils import canonicalize_name

from sitemap_updater.rebuild.outputs.bucket import MAX_AGE_SECONDS, kind_of
from tests.template.cfn import ROOT, load_template
from tests.template.layer import LAYER_FILE, parse_requirements, powertools_layer
from tests.template.test_guided_deploy import GUIDED_QUESTIONS

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


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_concurrency_quota_is_what_the_functions_reserve_plus_lambdas_100() -> None:
    functions = [
        r for r in load_template()["Resources"].values() if r["Type"] == "AWS::Serverless::Function"
    ]
    reserved = sum(f["Properties"].get("ReservedConcurrentExecutions", 0) for f in functions)
    assert reserved > 0
    # Lambda keeps 100 of the account's concurrency unreserved
    assert f"quota in the region must be at least {reserved + 100}." in _one_line(DEPLOY)


def test_the_layer_contents_are_its_requirement_file() -> None:
    sentence = re.search(
        r"holds only the `sitemap_updater` package and (.*?) \(their", _one_line(DEPLOY)
    )
    assert sentence is not None
    named = {canonicalize_name(n) for n in re.findall(r"`([^`]+)`", sentence[1])}
    assert named == {pin.name for pin in parse_requirements(LAYER_FILE)}
    # and what the Powertools layer ships is named as its, never as ours
    assert not named & powertools_layer()[1]
    assert "layers/shared/powertools-layer.txt" in DEPLOY


def test_the_max_age_the_pages_give_the_files_is_the_codes() -> None:
    found = re.findall(r"`max-age`\s*\((\d+) s\)", DEPLOY)
    text = "\n".join(PAGES)
    found += re.findall(r"the indexes and files carry `max-age=(\d+)`", _one_line(text))
    found += re.findall(r"max-age (\d+)\"\]", README)  # the README's diagram
    assert len(found) >= 3
    assert {int(n) for n in found} == {MAX_AGE_SECONDS}
    assert kind_of("sitemap.xml").cache_control == f"public, max-age={MAX_AGE_SECONDS}"


def test_every_question_of_the_guided_deploy_is_listed_with_what_enter_answers() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    table = {
        question: answer
        for question, answer in re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", DEPLOY, re.M)
    }
    for question in GUIDED_QUESTIONS:
        assert question in table, question
    # the README's deploy in brief names the questions after the parameters too
    for question in GUIDED_QUESTIONS[2:]:
        assert f"`{question}`" in _one_line(README), question
    assert (
        table["Stack Name"].strip()
        == f"`{config['default']['global']['parameters']['stack_name']}`"
    )
    assert table["AWS Region"].strip() == f"`{config['default']['global']['parameters']['region']}`"
    confirm = config["default"]["deploy"]["parameters"]["confirm_changeset"]
    assert table["Confirm changes before deploy"].strip() == ("`Y`" if confirm else "`N`")
    # SiteUrl is the one parameter without a default, and the table says it must be typed
    assert "type it" in table["Parameter SiteUrl"]


def test_every_alarm_is_in_the_operations_table() -> None:
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = operations.split("## Alarms", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([A-Za-z0-9]+)`", section, re.M))
    alarms = {
        lid
        for lid, r in load_template()["Resources"].items()
        if r["Type"] == "AWS::CloudWatch::Alarm"
    }
    assert alarms - listed == set(), "add each alarm, what fires it and what to do"
