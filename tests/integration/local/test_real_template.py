"""The local deployment stood up from the repository's own template.yaml, checked against it.

What each resource should be is read here from template.yaml itself, independently of the code
under test: aws-sam-translator's offline transform (``tests/template/cfn.py``), with intrinsic
functions evaluated against the parameters' defaults (SiteUrl, which has none, is the site the
deployment is given). References to resources come out of that as ``<LogicalId>`` or
``<LogicalId.Attribute>`` and are filled in with the physical names found in moto, so every
comparison is template value against moto value, or template value against what the emulator and
the handlers actually did.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.runtime import LOCAL_ENVIRONMENT
from tests.template.cfn import ROOT, Resolver, Template, load_template, sam_transform

SITE = "https://www.example.com"
TEMPLATE = ROOT / "template.yaml"
REGION = "us-east-1"
#: Queue properties of AWS::SQS::Queue that are queue attributes under the same name.
QUEUE_ATTRIBUTES = (
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "MaximumMessageSize",
    "ReceiveMessageWaitTimeSeconds",
    "SqsManagedSseEnabled",
)
_PLACEHOLDER = re.compile(r"<([A-Za-z0-9]+(?:\.[A-Za-z0-9.]+)?)>")


# ---------------------------------------------------------------- the template, read here


@pytest.fixture(scope="module")
def deployed() -> Template:
    """The CloudFormation template SAM would deploy (the translator reads the region)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", REGION)
        return sam_transform(load_template(TEMPLATE), {"SiteUrl": SITE})


@pytest.fixture(scope="module")
def resolver(deployed: Template) -> Resolver:
    return Resolver(deployed, {"SiteUrl": SITE})


def active(deployed: Template, resolver: Resolver, type_name: str) -> dict[str, dict[str, Any]]:
    """Resources of one type whose Condition (if any) holds with the default parameters."""
    return {
        lid: res
        for lid, res in deployed["Resources"].items()
        if res["Type"] == type_name
        and ("Condition" not in res or resolver.condition(res["Condition"]))
    }


def props(resolver: Resolver, resource: dict[str, Any]) -> dict[str, Any]:
    value = resolver.value(resource.get("Properties", {}))
    assert isinstance(value, dict)
    return value


def text(value: Any) -> str:
    """A template scalar as AWS reports it in string attributes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------- the deployment and moto


@pytest.fixture
def dep() -> Iterator[LocalDeployment]:
    with LocalDeployment(TEMPLATE, SITE) as deployment:
        yield deployment


def _matching(names: list[str], logical_id: str) -> str:
    """The one physical name whose last ``-`` segment is the logical id (case-insensitive)."""
    found = [
        n for n in names if n.rsplit("/", 1)[-1].rsplit("-", 1)[-1].lower() == logical_id.lower()
    ]
    assert len(found) == 1, f"{logical_id}: expected one physical resource among {names}"
    return found[0]


def physical(dep: LocalDeployment, deployed: Template, resolver: Resolver) -> dict[str, str]:
    """``LogicalId`` and ``LogicalId.Attribute`` -> the value moto holds, for every resource
    kind the deployment creates; also checks that moto holds exactly the template's resources."""
    found: dict[str, str] = {}

    tables = dep.dynamodb.list_tables()["TableNames"]
    wanted = active(deployed, resolver, "AWS::DynamoDB::Table")
    assert len(tables) == len(wanted)
    for lid in wanted:
        name = _matching(tables, lid)
        found[lid] = name
        description = dep.dynamodb.describe_table(TableName=name)["Table"]
        found[f"{lid}.Arn"] = description["TableArn"]
        if "LatestStreamArn" in description:
            found[f"{lid}.StreamArn"] = description["LatestStreamArn"]

    queues = dep.sqs.list_queues()["QueueUrls"]
    wanted = active(deployed, resolver, "AWS::SQS::Queue")
    assert len(queues) == len(wanted)
    for lid in wanted:
        url = _matching(queues, lid)
        arn = dep.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        found |= {lid: url, f"{lid}.Arn": arn, f"{lid}.QueueName": url.rsplit("/", 1)[-1]}

    buckets = [b["Name"] for b in dep.s3.list_buckets()["Buckets"]]
    wanted = active(deployed, resolver, "AWS::S3::Bucket")
    assert len(buckets) == len(wanted)
    for lid in wanted:
        name = _matching(buckets, lid)
        found |= {
            lid: name,
            f"{lid}.Arn": f"arn:aws:s3:::{name}",
            # the documented form of the attribute (AWS::S3::Bucket, Fn::GetAtt)
            f"{lid}.RegionalDomainName": f"{name}.s3.{REGION}.amazonaws.com",
        }

    distributions = dep.cloudfront.list_distributions()["DistributionList"].get("Items", [])
    wanted = active(deployed, resolver, "AWS::CloudFront::Distribution")
    assert len(distributions) == len(wanted) == 1, "one distribution pairs with one"
    (lid,) = wanted
    found |= {
        lid: distributions[0]["Id"],
        f"{lid}.Id": distributions[0]["Id"],
        f"{lid}.DomainName": distributions[0]["DomainName"],
    }
    return found


def fill(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every ``<LogicalId[.Attribute]>`` replaced by its physical value."""
    if isinstance(value, dict):
        return {k: fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, names) for v in value]
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: names.get(m.group(1), m.group(0)), value)
    return value


def url_of_arn(names: dict[str, str], arn: str) -> str:
    """The queue URL (its Ref) of the queue whose ARN is ``arn``."""
    (logical_id,) = (key[: -len(".Arn")] for key, value in names.items() if value == arn)
    return names[logical_id]


def event_source(deployed: Template, resolver: Resolver) -> dict[str, Any]:
    """The template's one SQS event source mapping, unresolved (the other one, the urgent
    mapping, reads the table's stream: tests/integration/local/test_urgent_publish.py)."""
    (mapping,) = (
        m
        for m in active(deployed, resolver, "AWS::Lambda::EventSourceMapping").values()
        if "StartingPosition" not in m["Properties"]
    )
    return mapping


def scheduled_function(deployed: Template, resolver: Resolver) -> str:
    """Logical id of the function the schedule rules (incremental and reconcile) target: the
    one with two rules (the observer has one of its own)."""
    targets = [
        target["Arn"]["Fn::GetAtt"][0]
        for rule in active(deployed, resolver, "AWS::Events::Rule").values()
        if "ScheduleExpression" in rule["Properties"]
        for target in rule["Properties"]["Targets"]
    ]
    (rebuild,) = {lid for lid in targets if targets.count(lid) == 2}
    return str(rebuild)


# ---------------------------------------------------------------- tests


def test_the_default_template_is_the_repository_template() -> None:
    assert DEFAULT_TEMPLATE.resolve() == TEMPLATE.resolve()


def test_table_keys_indexes_billing_and_ttl(
    dep: LocalDeployment, deployed: Template, resolver: Resolver
) -> None:
    names = physical(dep, deployed, resolver)
    for lid, resource in active(deployed, resolver, "AWS::DynamoDB::Table").items():
        want = props(resolver, resource)
        table: dict[str, Any] = dict(dep.dynamodb.describe_table(TableName=names[lid])["Table"])
        assert table["KeySchema"] == want["KeySchema"]
        assert sorted(table["AttributeDefinitions"], key=str) == sorted(
            want["AttributeDefinitions"], key=str
        )
        assert table["BillingModeSummary"]["BillingMode"] == want.get("BillingMode", "PROVISIONED")
        for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            got = {i["IndexName"]: (i["KeySchema"], i["Projection"]) for i in table.get(key, [])}
            expected = {
                i["IndexName"]: (i["KeySchema"], i["Projection"]) for i in want.get(key, [])
            }
            assert got == expected, key
        streams = want.get("StreamSpecification")
        assert table.get("StreamSpecification", {}).get("StreamEnabled", False) == bool(streams)

        ttl = dep.dynamodb.describe_time_to_live(TableName=names[lid])["TimeToLiveDescription"]
        ttl_spec = want.get("TimeToLiveSpecification", {})
        if text(ttl_spec.get("Enabled", False)) == "true":
            assert ttl["TimeToLiveStatus"] == "ENABLED"
            assert ttl["AttributeName"] == ttl_spec["AttributeName"]
        else:
            assert ttl["TimeToLiveStatus"] == "DISABLED"


def test_queues_attributes_and_redrive_policy(
    dep: LocalDeployment, deployed: Template, resolver: Resolver
) -> None:
    names = physical(dep, deployed, resolver)
    redriven = 0
    for lid, resource in active(deployed, resolver, "AWS::SQS::Queue").items():
        want = fill(props(resolver, resource), names)
        got: dict[str, str] = {
            str(k): v
            for k, v in dep.sqs.get_queue_attributes(QueueUrl=names[lid], AttributeNames=["All"])[
                "Attributes"
            ].items()
        }
        for attribute in QUEUE_ATTRIBUTES:
            if attribute in want:
                assert got[attribute] == text(want[attribute]), f"{lid}.{attribute}"
        if "RedrivePolicy" not in want:
            assert "RedrivePolicy" not in got, lid
            continue
        redriven += 1
        policy = json.loads(got["RedrivePolicy"])
        assert policy["deadLetterTargetArn"] == want["RedrivePolicy"]["deadLetterTargetArn"]
        assert policy["maxReceiveCount"] == int(want["RedrivePolicy"]["maxReceiveCount"])
        # the queue the emulated mapping polls is this one, and it knows the same limit
        assert (dep.queue_url, dep.max_receive_count) == (names[lid], policy["maxReceiveCount"])
        assert dep.dlq_url == url_of_arn(names, policy["deadLetterTargetArn"])
    assert redriven == 1


def _probe(
    monkeypatch: pytest.MonkeyPatch, module: Any, record: list[dict[str, Any]], fail: bool = False
) -> None:
    """Wrap the real handler of ``module``: note each event and the environment it runs in.

    With ``fail`` the handler is not called and every record is reported failed.
    """
    real = module.lambda_handler

    def probe(event: dict[str, Any], context: Any) -> Any:
        record.append({"event": event, "environ": dict(os.environ)})
        if fail:
            return {
                "batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in event["Records"]]
            }
        return real(event, context)

    monkeypatch.setattr(module, "lambda_handler", probe)


def test_event_source_mapping_batch_size_and_partial_batch_responses(
    dep: LocalDeployment,
    deployed: Template,
    resolver: Resolver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = physical(dep, deployed, resolver)
    mapping = event_source(deployed, resolver)
    want = fill(props(resolver, mapping), names)
    batch_size = int(want["BatchSize"])
    # the emulator honours batchItemFailures, which is right only if the template asks for it
    assert "ReportBatchItemFailures" in want["FunctionResponseTypes"]
    assert mapping["Properties"]["FunctionName"] == {"Ref": dep.ingest.spec.logical_id}
    source = deployed["Resources"][dep.ingest.spec.logical_id]
    module_name = source["Properties"]["Handler"].rsplit(".", 1)[0]
    code_uri = load_template(TEMPLATE)["Resources"][dep.ingest.spec.logical_id]["Properties"][
        "CodeUri"
    ]
    assert dep.ingest.spec.code_path.resolve() == (ROOT / code_uri / f"{module_name}.py").resolve()

    calls: list[dict[str, Any]] = []
    _probe(monkeypatch, dep.ingest.load(), calls)
    queue_url = url_of_arn(names, want["EventSourceArn"])
    total = 2 * batch_size + 3
    for start in range(0, total, 10):
        dep.sqs.send_message_batch(
            QueueUrl=queue_url,
            Entries=[
                {
                    "Id": str(i),
                    "MessageBody": json.dumps({"action": "upsert", "url": f"{SITE}/page/{i}"}),
                }
                for i in range(start, min(total, start + 10))
            ],
        )
    report = dep.drain()

    sizes = [len(call["event"]["Records"]) for call in calls]
    assert sizes == [batch_size, batch_size, 3]
    assert {r["eventSourceARN"] for c in calls for r in c["event"]["Records"]} == {
        want["EventSourceArn"]
    }
    # the real handler applied every record, so the mapping deleted them all
    assert (report.records, report.deleted, report.retried) == (total, total, 0)
    assert dep.dead_letters() == []


def test_a_failing_record_is_received_max_receive_count_times_then_dead_lettered(
    dep: LocalDeployment,
    deployed: Template,
    resolver: Resolver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = physical(dep, deployed, resolver)
    (queue,) = (
        props(resolver, res)
        for res in active(deployed, resolver, "AWS::SQS::Queue").values()
        if "RedrivePolicy" in res["Properties"]
    )
    max_receive = int(queue["RedrivePolicy"]["maxReceiveCount"])
    calls: list[dict[str, Any]] = []
    _probe(monkeypatch, dep.ingest.load(), calls, fail=True)
    body = json.dumps({"action": "upsert", "url": f"{SITE}/always-fails"})

    assert dep.send([body]) == []
    dep.drain()

    receives = [
        int(r["attributes"]["ApproximateReceiveCount"])
        for c in calls
        for r in c["event"]["Records"]
    ]
    assert receives == list(range(1, max_receive + 1))
    dead = dep.dead_letters()
    assert [d.body for d in dead] == [body]
    assert dead[0].reason is None  # moved by SQS's redrive, not sent by the handler
    assert dep.dlq_url == url_of_arn(
        names, fill(queue["RedrivePolicy"]["deadLetterTargetArn"], names)
    )


def test_bucket_and_distribution(
    dep: LocalDeployment, deployed: Template, resolver: Resolver
) -> None:
    names = physical(dep, deployed, resolver)
    for lid, resource in active(deployed, resolver, "AWS::S3::Bucket").items():
        want = props(resolver, resource)
        dep.s3.head_bucket(Bucket=names[lid])
        versioning = dep.s3.get_bucket_versioning(Bucket=names[lid])
        assert versioning.get("Status") == want.get("VersioningConfiguration", {}).get("Status")

    ((lid, resource),) = active(deployed, resolver, "AWS::CloudFront::Distribution").items()
    # The comment names the stack's ID: read it with the local stack's pseudo parameters.
    stack = {
        "AWS::StackName": dep.template.stack_name,
        "AWS::StackId": str(dep.template.resolve({"Ref": "AWS::StackId"})),
    }
    local = Resolver(deployed, {"SiteUrl": SITE}, pseudo=stack)
    want = fill(props(local, resource)["DistributionConfig"], names)
    got = dep.cloudfront.get_distribution(Id=names[lid])["Distribution"]["DistributionConfig"]
    assert [(o["Id"], o["DomainName"]) for o in got["Origins"]["Items"]] == [
        (o["Id"], o["DomainName"]) for o in want["Origins"]
    ]
    for key in ("Comment", "DefaultRootObject", "PriceClass", "HttpVersion"):
        assert got[key] == want[key], key
    assert got["Enabled"] is want["Enabled"]
    assert got["IsIPV6Enabled"] is want["IPV6Enabled"]
    assert got["Aliases"]["Quantity"] == len(want.get("Aliases", []))
    behavior: dict[str, Any] = dict(got["DefaultCacheBehavior"])
    want_behavior = want["DefaultCacheBehavior"]
    for key in ("TargetOriginId", "ViewerProtocolPolicy", "Compress"):
        assert behavior[key] == want_behavior[key], key
    assert set(behavior["AllowedMethods"]["Items"]) == set(want_behavior["AllowedMethods"])
    assert set(behavior["AllowedMethods"]["CachedMethods"]["Items"]) == set(
        want_behavior["CachedMethods"]
    )


def test_each_function_runs_with_the_template_environment(
    dep: LocalDeployment,
    deployed: Template,
    resolver: Resolver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = physical(dep, deployed, resolver)
    functions = active(deployed, resolver, "AWS::Lambda::Function")
    ingest_id = event_source(deployed, resolver)["Properties"]["FunctionName"]["Ref"]
    rebuild_id = scheduled_function(deployed, resolver)
    assert dep.observe_function is not None
    observer_id = dep.observe_function.spec.logical_id
    local = {ingest_id: dep.ingest, rebuild_id: dep.rebuild_function}
    local[observer_id] = dep.observe_function
    assert {fn.spec.logical_id for fn in local.values()} == set(functions) == set(local)

    ingest_calls: list[dict[str, Any]] = []
    rebuild_calls: list[dict[str, Any]] = []
    observer_calls: list[dict[str, Any]] = []
    _probe(monkeypatch, dep.ingest.load(), ingest_calls)
    _probe(monkeypatch, dep.rebuild_function.load(), rebuild_calls)
    # the observer's environment only: its run would fetch the site's pages
    monkeypatch.setattr(
        dep.observe_function.load(),
        "lambda_handler",
        lambda event, context: observer_calls.append({"environ": dict(os.environ)}) or {},
    )
    assert dep.send([json.dumps({"action": "upsert", "url": f"{SITE}/env"})]) == []
    dep.drain()
    report = dep.rebuild()
    assert report["complete"] is True
    dep.observe()
    seen = {
        ingest_id: ingest_calls[0]["environ"],
        rebuild_id: rebuild_calls[0]["environ"],
        observer_id: observer_calls[0]["environ"],
    }

    for lid, resource in functions.items():
        variables = props(resolver, resource)["Environment"]["Variables"]
        expected = {name: text(value) for name, value in fill(variables, names).items()}
        assert not [v for v in expected.values() if _PLACEHOLDER.search(v)], expected
        assert set(local[lid].environment) == set(expected), lid
        # the local runtime turns tracing off on purpose (no X-Ray daemon): its own settings win
        overridden = {
            name: LOCAL_ENVIRONMENT[name] for name in expected if name in LOCAL_ENVIRONMENT
        }
        assert {name: seen[lid].get(name) for name in expected} == {**expected, **overridden}, lid


def test_several_hosts_stand_up_with_the_distribution_under_the_site_hosts() -> None:
    # The CloudFront Function has no local counterpart: it is bound, not created, and the
    # distribution answers under the hosts of SiteUrl (SiteHostAliases=true).
    sites = f"{SITE},https://www.example.de,https://shop.example.fr"
    parameters = {
        "SiteHostAliases": "true",
        "AcmCertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/abc-1",
    }
    with LocalDeployment(TEMPLATE, sites, parameters=parameters) as dep:
        (distribution,) = dep.cloudfront.list_distributions()["DistributionList"]["Items"]
        assert distribution["Aliases"]["Items"] == [
            "www.example.com",
            "www.example.de",
            "shop.example.fr",
        ]
        environment = dep.template.functions()
        assert environment["IngestFunction"].environment["SITE_URL"] == sites
        assert environment["RebuildFunction"].environment["PUBLIC_BASE_URL"] == sites
        assert dep.template.condition("RoutesHostsOnThisDistribution")
