"""The deployed shape of template.yaml, read from SAM's own offline transform."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sitemap_updater.config import (
    DEFAULT_MAX_BYTES_PER_SITEMAP,
    DEFAULT_MAX_URLS_PER_SITEMAP,
    IngestConfig,
    RebuildConfig,
)
from sitemap_updater.indexnow import IndexNowConfigError, check_endpoint
from sitemap_updater.rebuild.outputs.bucket import MAX_AGE_SECONDS, kind_of
from sitemap_updater.rebuild.request import wants_full_rebuild
from tests.template.cfn import (
    ROOT,
    Resolver,
    Template,
    load_template,
    referenced_ids,
    resources_of_type,
    sam_transform,
)

SITE = "https://www.example.com"
POWERTOOLS = {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"}
# What SAM attaches to a role it generates: logs and X-Ray (no resource-level permissions exist
# for PutTraceSegments). Never the SQS poller's AWSLambdaSQSQueueExecutionRole, which receives
# and deletes on every queue of the account: the ingest function has a role of its own.
SAM_MANAGED = {
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
}
#: Each function's execution role, as the transformed template names it.
ROLES = {"Ingest": "IngestRole", "Rebuild": "RebuildFunctionRole", "Observe": "ObserveFunctionRole"}


@pytest.fixture(scope="module")
def source() -> Template:
    return load_template()


@pytest.fixture(scope="module")
def cfn(source: Template, monkeypatch_module: pytest.MonkeyPatch) -> Template:
    return sam_transform(source, {"SiteUrl": SITE})


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    # The translator reads the region from the default boto3 session for pseudo parameters.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        yield mp


def function_named(cfn: Template, prefix: str) -> dict[str, Any]:
    return dict(cfn["Resources"][f"{prefix}Function"])


def documented_env(function: str) -> set[str]:
    """Variable names docs/architecture.md assigns to `function` (or to both)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    names: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"\|\s*`([A-Z_]+)`\s*\|\s*(both|ingest|rebuild)\s*\|", line)
        if m and m.group(2) in {"both", function}:
            names.add(m.group(1))
    return names


# ---------------------------------------------------------------- parameters


def test_only_site_url_lacks_a_default(source: Template) -> None:
    without = [n for n, spec in source["Parameters"].items() if "Default" not in spec]
    assert without == ["SiteUrl"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("https://www.example.com", True),
        ("http://localhost:8080", True),
        ("https://www.example.com/", False),
        ("https://www.example.com/shop", False),
        ("www.example.com", False),
    ],
)
def test_site_url_pattern_accepts_only_an_origin(source: Template, value: str, ok: bool) -> None:
    pattern = source["Parameters"]["SiteUrl"]["AllowedPattern"]
    assert (re.fullmatch(pattern, value) is not None) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("https://api.indexnow.org/indexnow", True),
        ("https://www.bing.com:443/indexnow", True),
        ("http://127.0.0.1:8123/indexnow", True),
        ("http://api.indexnow.org/indexnow", False),
        ("http://10.0.0.5/indexnow", False),
        ("ftp://api.indexnow.org/indexnow", False),
    ],
)
def test_the_indexnow_endpoint_pattern_is_the_configs_rule(
    source: Template, value: str, ok: bool
) -> None:
    pattern = source["Parameters"]["IndexNowEndpoint"]["AllowedPattern"]
    assert (re.fullmatch(pattern, value) is not None) is ok
    try:
        check_endpoint(value)
    except IndexNowConfigError:
        assert not ok
    else:
        assert ok


# ---------------------------------------------------------------- functions


@pytest.mark.parametrize("name", ["Ingest", "Rebuild", "Observe"])
def test_function_runtime_tracing_logging_and_layers(cfn: Template, name: str) -> None:
    props = function_named(cfn, name)["Properties"]
    assert props["Runtime"] == "python3.12"
    assert props["Architectures"] == ["arm64"]
    assert props["TracingConfig"] == {"Mode": {"Ref": "Tracing"}}
    assert props["LoggingConfig"]["LogFormat"] == "JSON"
    assert props["Handler"] == "app.lambda_handler"
    layers = props["Layers"]
    shared = resources_of_type(cfn, "AWS::Lambda::LayerVersion")
    assert len(shared) == 1 and {"Ref": next(iter(shared))} in layers
    powertools = [v for v in layers if "Fn::Sub" in v]
    assert len(powertools) == 1
    arn = Resolver(load_template(), {"SiteUrl": SITE}).value(powertools[0])
    assert arn == (
        "arn:aws:lambda:us-east-1:017000801446:layer:"
        "AWSLambdaPowertoolsPythonV3-python312-arm64:"
        + str(cfn["Parameters"]["PowertoolsLayerVersion"]["Default"])
    )


@pytest.mark.parametrize(("tracing", "disabled"), [("Active", "false"), ("PassThrough", "true")])
def test_the_tracing_parameter_sets_xray_and_powertools_together(
    cfn: Template, tracing: str, disabled: str
) -> None:
    assert cfn["Parameters"]["Tracing"]["Default"] == "Active"
    resolver = Resolver(load_template(), {"SiteUrl": SITE, "Tracing": tracing})
    for name in ("Ingest", "Rebuild", "Observe"):
        props = function_named(cfn, name)["Properties"]
        assert resolver.value(props["TracingConfig"]["Mode"]) == tracing
        env = props["Environment"]["Variables"]
        assert resolver.value(env["POWERTOOLS_TRACE_DISABLED"]) == disabled


@pytest.mark.parametrize("name", ["Ingest", "Rebuild"])
def test_environment_is_the_documented_set_and_names_existing_things(
    cfn: Template, name: str
) -> None:
    env = function_named(cfn, name)["Properties"]["Environment"]["Variables"]
    assert set(env) == documented_env(name.lower()) | POWERTOOLS
    known = set(cfn["Resources"]) | set(cfn["Parameters"]) | set(Resolver.PSEUDO)
    for var, value in env.items():
        missing = set(referenced_ids(value)) - known
        assert not missing, f"{var} refers to {missing}"


def test_environment_with_defaults_is_accepted_by_the_config(source: Template) -> None:
    resolver = Resolver(source, {"SiteUrl": SITE})
    globals_env = source["Globals"]["Function"]["Environment"]["Variables"]

    def env_of(name: str) -> dict[str, str]:
        own = source["Resources"][f"{name}Function"]["Properties"]["Environment"]["Variables"]
        return {k: str(v) for k, v in resolver.value({**globals_env, **own}).items()}

    ingest = IngestConfig.from_env(env_of("Ingest"))
    assert ingest.table_name == "<Table>" and ingest.dlq_url == "<DeadLetterQueue>"
    assert ingest.site_url == SITE

    rebuild_env = env_of("Rebuild")
    rebuild = RebuildConfig.from_env(rebuild_env)
    assert rebuild.bucket_name == "<Bucket>"
    assert rebuild.distribution_id == ""  # invalidation is opt-in
    assert rebuild.stream_arn == "<Table.StreamArn>"
    assert rebuild.state_table_name == "<StateTable>"
    assert rebuild.public_base_url == "https://<Distribution.DomainName>"
    timeout = source["Resources"]["RebuildFunction"]["Properties"]["Timeout"]
    assert rebuild.lease_seconds > timeout
    assert rebuild.time_budget_margin_seconds < timeout
    # the caps are defined once in config; the template sets the same values
    assert rebuild.max_urls_per_sitemap == DEFAULT_MAX_URLS_PER_SITEMAP
    assert rebuild.max_bytes_per_sitemap == DEFAULT_MAX_BYTES_PER_SITEMAP


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, "https://<Distribution.DomainName>"),
        (
            {
                "DomainName": "sitemaps.example.com",
                "AcmCertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/abc-1",
            },
            "https://sitemaps.example.com",
        ),
        ({"PublicBaseUrl": SITE}, SITE),
    ],
)
def test_public_base_url_follows_where_the_files_are_served(
    source: Template, overrides: dict[str, str], expected: str
) -> None:
    resolver = Resolver(source, {"SiteUrl": SITE, **overrides})
    env = source["Resources"]["RebuildFunction"]["Properties"]["Environment"]["Variables"]
    assert resolver.value(env["PUBLIC_BASE_URL"]) == expected
    index = resolver.value(source["Outputs"]["SitemapIndexUrl"]["Value"])
    assert index == expected + "/sitemap.xml"


def test_rebuild_runs_alone_and_is_sized_for_a_full_rebuild(cfn: Template) -> None:
    props = function_named(cfn, "Rebuild")["Properties"]
    assert props["ReservedConcurrentExecutions"] == 1
    assert props["Timeout"] == 900
    params = cfn["Parameters"]
    # an incremental run patches a few files; a full rebuild's memory stays flat
    assert params["RebuildMemorySize"]["Default"] == 1024
    # 10M URLs spooled at about 250 bytes each: 2.5 GB must fit in /tmp.
    assert params["RebuildEphemeralStorageSize"]["Default"] * 1024 * 1024 >= 10_000_000 * 250
    invoke = resources_of_type(cfn, "AWS::Lambda::EventInvokeConfig")
    (config,) = [
        c for c in invoke.values() if c["Properties"]["FunctionName"] == {"Ref": "RebuildFunction"}
    ]
    assert config["Properties"]["MaximumRetryAttempts"] == 0


def test_rebuild_and_reconcile_schedules_use_their_parameters(cfn: Template) -> None:
    rules = resources_of_type(cfn, "AWS::Events::Rule")
    schedules = {
        r["Properties"]["ScheduleExpression"]["Ref"]: r["Properties"]
        for r in rules.values()
        if "Ref" in r["Properties"].get("ScheduleExpression", {})  # the observer's: a rate
    }
    assert set(schedules) == {"RebuildSchedule", "ReconcileSchedule"}
    assert cfn["Parameters"]["RebuildSchedule"]["Default"] == "rate(4 minutes)"
    assert cfn["Parameters"]["ReconcileSchedule"]["Default"] == "rate(7 days)"
    for name, props in schedules.items():
        (target,) = props["Targets"]
        assert target["Arn"] == {"Fn::GetAtt": ["RebuildFunction", "Arn"]}
        # the reconcile run asks for a full rebuild; the incremental one sends the event as is
        assert ("Input" in target) == (name == "ReconcileSchedule")
    (reconcile,) = schedules["ReconcileSchedule"]["Targets"]
    assert wants_full_rebuild(json.loads(reconcile["Input"])) is True


# ---------------------------------------------------------------- ingest queue


def test_ingest_event_source_reports_batch_item_failures(cfn: Template) -> None:
    (mapping,) = (
        m
        for m in resources_of_type(cfn, "AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": "IngestFunction"}
    )
    props = mapping["Properties"]
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["Queue", "Arn"]}
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["BatchSize"] == {"Ref": "IngestBatchSize"}
    assert props["MaximumBatchingWindowInSeconds"] == {"Ref": "IngestBatchingWindowSeconds"}
    assert props["ScalingConfig"] == {"MaximumConcurrency": {"Ref": "IngestMaximumConcurrency"}}
    # Above 10 messages per batch, SQS event sources need a batching window of at least 1 s.
    assert cfn["Parameters"]["IngestBatchingWindowSeconds"]["MinValue"] >= 1


def test_visibility_timeout_covers_six_ingest_timeouts_plus_the_batching_window(
    cfn: Template,
) -> None:
    timeout = function_named(cfn, "Ingest")["Properties"]["Timeout"]
    visibility = cfn["Resources"]["Queue"]["Properties"]["VisibilityTimeout"]
    window_max = cfn["Parameters"]["IngestBatchingWindowSeconds"]["MaxValue"]
    assert visibility >= 6 * timeout
    assert visibility >= 6 * timeout + window_max


def test_queues_encrypted_redrive_to_dlq_kept_fourteen_days(cfn: Template) -> None:
    queue = cfn["Resources"]["Queue"]["Properties"]
    dlq = cfn["Resources"]["DeadLetterQueue"]["Properties"]
    assert queue["SqsManagedSseEnabled"] is True and dlq["SqsManagedSseEnabled"] is True
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["DeadLetterQueue", "Arn"]},
        "maxReceiveCount": {"Ref": "MaxReceiveCount"},
    }
    assert dlq["MessageRetentionPeriod"] == 14 * 24 * 3600
    # A moved message keeps its first enqueue time: the DLQ must keep messages longer.
    assert queue["MessageRetentionPeriod"] < dlq["MessageRetentionPeriod"]


def test_a_tombstone_outlives_any_change_the_dlq_still_holds(cfn: Template) -> None:
    # A change replayed from the DLQ (sitemap-updater redrive) was first sent at most the DLQ's
    # retention ago, and any later delete of its URL left a tombstone that lives this long.
    dlq = cfn["Resources"]["DeadLetterQueue"]["Properties"]
    days = cfn["Parameters"]["TombstoneTtlDays"]["Default"]
    assert days * 86_400 >= dlq["MessageRetentionPeriod"]


def test_queue_policy_denies_plain_http_and_admits_only_the_change_rule(
    cfn: Template, source: Template
) -> None:
    statements = cfn["Resources"]["QueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    without_rule = Resolver(source, {"SiteUrl": SITE}).value(statements)
    assert [s["Effect"] for s in without_rule] == ["Deny"]
    assert without_rule[0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}

    with_rule = Resolver(source, {"SiteUrl": SITE, "EventSource": "com.example.cms"})
    allow = [s for s in with_rule.value(statements) if s["Effect"] == "Allow"]
    assert allow == [
        {
            "Sid": "AllowOnlyTheChangeEventRule",
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Action": "sqs:SendMessage",
            "Resource": "<Queue.Arn>",
            "Condition": {"ArnEquals": {"aws:SourceArn": "<ChangeEventRule.Arn>"}},
        }
    ]
    rule = cfn["Resources"]["ChangeEventRule"]
    assert rule["Condition"] == "UseEventBridgeRule"
    assert rule["Properties"]["EventBusName"] == {"Ref": "EventBusName"}
    assert cfn["Parameters"]["EventBusName"]["Default"] == "default"
    # `source` and `detail-type` are whatever a PutEvents caller says; `account` is the one
    # EventBridge sets to the caller's, so the rule forwards this account's events alone.
    assert rule["Properties"]["EventPattern"] == {
        "account": [{"Ref": "AWS::AccountId"}],
        "source": [{"Ref": "EventSource"}],
        "detail-type": [{"Ref": "EventDetailType"}],
    }
    assert rule["Properties"]["Targets"][0]["Arn"] == {"Fn::GetAtt": ["Queue", "Arn"]}
    assert not Resolver(source, {"SiteUrl": SITE}).condition("UseEventBridgeRule")


def test_an_event_the_queue_refuses_goes_to_a_dead_letter_queue_that_alarms(
    cfn: Template, source: Template
) -> None:
    (target,) = cfn["Resources"]["ChangeEventRule"]["Properties"]["Targets"]
    assert target["DeadLetterConfig"] == {
        "Arn": {"Fn::GetAtt": ["ChangeEventDeadLetterQueue", "Arn"]}
    }
    dlq = cfn["Resources"]["ChangeEventDeadLetterQueue"]
    assert dlq["Condition"] == "UseEventBridgeRule"
    props = dlq["Properties"]
    assert props["SqsManagedSseEnabled"] is True
    # an event of EventBridge's largest (256 KB), which the ingest queue may refuse once its
    # envelope is added, fits, with the attributes EventBridge adds
    assert (
        props["MaximumMessageSize"] > cfn["Resources"]["Queue"]["Properties"]["MaximumMessageSize"]
    )
    assert props["MessageRetentionPeriod"] == 14 * 24 * 3600
    # only the rule may send there, over TLS
    with_rule = Resolver(source, {"SiteUrl": SITE, "EventSource": "com.example.cms"})
    policy = cfn["Resources"]["ChangeEventDeadLetterQueuePolicy"]
    assert policy["Condition"] == "UseEventBridgeRule"
    statements = with_rule.value(policy["Properties"]["PolicyDocument"]["Statement"])
    assert [s["Effect"] for s in statements] == ["Deny", "Allow"]
    assert statements[0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert statements[1]["Principal"] == {"Service": "events.amazonaws.com"}
    assert statements[1]["Action"] == "sqs:SendMessage"
    assert statements[1]["Condition"] == {"ArnEquals": {"aws:SourceArn": "<ChangeEventRule.Arn>"}}
    alarm = alarm_on(
        cfn,
        "ApproximateNumberOfMessagesVisible",
        {"Fn::GetAtt": ["ChangeEventDeadLetterQueue", "QueueName"]},
    )
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (0, "GreaterThanThreshold")
    topic = "arn:aws:sns:us-east-1:123456789012:ops"
    with_topic = Resolver(
        source, {"SiteUrl": SITE, "EventSource": "com.example.cms", "AlarmTopicArn": topic}
    )
    assert with_topic.value(alarm)["AlarmActions"] == [topic]
    conditioned = {
        lid: r.get("Condition")
        for lid, r in cfn["Resources"].items()
        if "ChangeEventDeadLetterQueue" in json.dumps(r)
    }
    assert set(conditioned.values()) == {"UseEventBridgeRule"}, conditioned


# ---------------------------------------------------------------- IAM


def role_statements(cfn: Template, role: str) -> list[dict[str, Any]]:
    props = cfn["Resources"][role]["Properties"]
    return [s for p in props.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def unconditional(statements: list[Any]) -> list[dict[str, Any]]:
    """The statements, each one granted under a condition (Fn::If) taken as granted."""
    return [s["Fn::If"][1] if "Fn::If" in s else s for s in statements]


@pytest.mark.parametrize("function", sorted(ROLES))
def test_iam_statements_name_actions_and_resources(cfn: Template, function: str) -> None:
    role = ROLES[function]
    assert function_named(cfn, function)["Properties"]["Role"] == {"Fn::GetAtt": [role, "Arn"]}
    statements = unconditional(role_statements(cfn, role))
    assert statements
    for s in statements:
        for action in as_list(s["Action"]):
            assert action != "*" and not action.endswith(":*"), action
        for resource in as_list(s["Resource"]):
            if resource == "*":  # X-Ray alone has no resource-level permissions
                assert {a.split(":")[0] for a in as_list(s["Action"])} == {"xray"}, s
                continue
            # a resource of the stack's, or one a parameter names (an engine's secret)
            assert set(referenced_ids(resource)) & (
                set(cfn["Resources"]) | set(cfn["Parameters"])
            ), s
    managed = set(cfn["Resources"][role]["Properties"].get("ManagedPolicyArns", []))
    assert managed <= SAM_MANAGED


def test_the_ingest_role_is_its_own_and_grants_its_resources_alone(
    cfn: Template, source: Template
) -> None:
    role = cfn["Resources"]["IngestRole"]["Properties"]
    assert "ManagedPolicyArns" not in role
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust == {
        "Effect": "Allow",
        "Principal": {"Service": "lambda.amazonaws.com"},
        "Action": "sts:AssumeRole",
    }
    granted = {
        (a, json.dumps(s["Resource"], sort_keys=True))
        for s in unconditional(role_statements(cfn, "IngestRole"))
        for a in as_list(s["Action"])
    }
    on = lambda logical, attribute: json.dumps({"Fn::GetAtt": [logical, attribute]})  # noqa: E731
    assert granted == {
        ("dynamodb:PutItem", on("Table", "Arn")),
        ("sqs:SendMessage", on("DeadLetterQueue", "Arn")),
        # what the SQS event source does with the function's role, on its own queue alone
        ("sqs:ReceiveMessage", on("Queue", "Arn")),
        ("sqs:DeleteMessage", on("Queue", "Arn")),
        ("sqs:GetQueueAttributes", on("Queue", "Arn")),
        # its own log group (the Arn ends in ":*", every stream of it)
        ("logs:CreateLogStream", on("IngestLogGroup", "Arn")),
        ("logs:PutLogEvents", on("IngestLogGroup", "Arn")),
        ("xray:PutTraceSegments", '"*"'),
        ("xray:PutTelemetryRecords", '"*"'),
    }
    # the function logs to that group, and traces only with Tracing=Active
    logging = function_named(cfn, "Ingest")["Properties"]["LoggingConfig"]
    assert logging["LogGroup"] == {"Ref": "IngestLogGroup"}
    for tracing, traced in (("Active", True), ("PassThrough", False)):
        resolver = Resolver(source, {"SiteUrl": SITE, "Tracing": tracing})
        actions = {
            a
            for s in resolver.value(role_statements(cfn, "IngestRole"))
            for a in as_list(s["Action"])
        }
        assert ("xray:PutTraceSegments" in actions) is traced


def actions_on(cfn: Template, role: str, resource: Any) -> set[str]:
    return {
        a
        for s in role_statements(cfn, role)
        if resource in as_list(s["Resource"])
        for a in as_list(s["Action"])
    }


def test_table_actions_are_granted_on_the_tables_and_the_stream_only(cfn: Template) -> None:
    # Which actions: tests/template/test_least_privilege.py derives them from the code.
    stream_actions = {
        "dynamodb:DescribeStream",
        "dynamodb:GetShardIterator",
        "dynamodb:GetRecords",
        "dynamodb:ListStreams",  # the urgent event source mapping's poller
    }
    for role in ("IngestRole", "RebuildFunctionRole"):
        for s in unconditional(role_statements(cfn, role)):
            actions = set(as_list(s["Action"]))
            if not any(a.startswith("dynamodb:") for a in actions):
                continue
            if actions & stream_actions:
                assert role == "RebuildFunctionRole" and actions <= stream_actions, s
                assert s["Resource"] == {"Fn::GetAtt": ["Table", "StreamArn"]}, s
            elif role == "IngestRole":
                assert s["Resource"] == {"Fn::GetAtt": ["Table", "Arn"]}, s
            else:
                assert s["Resource"] in (
                    {"Fn::GetAtt": ["Table", "Arn"]},
                    {"Fn::GetAtt": ["StateTable", "Arn"]},
                ), s


def test_ingest_may_send_only_to_the_dlq_and_poll_only_its_queue(cfn: Template) -> None:
    statements = unconditional(role_statements(cfn, "IngestRole"))
    sqs = [s for s in statements if "sqs:" in str(s["Action"])]
    sends = [s for s in sqs if "sqs:SendMessage" in as_list(s["Action"])]
    assert len(sends) == 1
    assert sends[0]["Action"] == "sqs:SendMessage"
    assert sends[0]["Resource"] == {"Fn::GetAtt": ["DeadLetterQueue", "Arn"]}
    others = [s for s in sqs if s not in sends]
    assert {json.dumps(s["Resource"]) for s in others} == {
        json.dumps({"Fn::GetAtt": ["Queue", "Arn"]})
    }


def rebuild_grants(source: Template, cfn: Template, **overrides: str) -> dict[str, set[str]]:
    resolver = Resolver(source, {"SiteUrl": SITE, **overrides})
    statements = resolver.value(role_statements(cfn, "RebuildFunctionRole"))
    by_resource: dict[str, set[str]] = {}
    for s in statements:
        for r in as_list(s["Resource"]):
            by_resource.setdefault(r, set()).update(as_list(s["Action"]))
    return by_resource


def test_rebuild_reads_back_and_writes_the_bucket_objects_and_invalidates_nothing_by_default(
    cfn: Template, source: Template
) -> None:
    by_resource = rebuild_grants(source, cfn)
    assert by_resource["<Bucket.Arn>/*"] == {"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}
    assert "<Bucket.Arn>" not in by_resource
    cloudfront = {
        r for r, actions in by_resource.items() if "cloudfront:CreateInvalidation" in actions
    }
    assert cloudfront == {"arn:aws:cloudfront::123456789012:distribution/<Distribution>"}
    env = Resolver(source, {"SiteUrl": SITE}).value(
        source["Resources"]["RebuildFunction"]["Properties"]["Environment"]["Variables"]
    )
    assert env["DISTRIBUTION_ID"] == ""
    opted_in = Resolver(source, {"SiteUrl": SITE, "InvalidateOnPublish": "true"}).value(
        source["Resources"]["RebuildFunction"]["Properties"]["Environment"]["Variables"]
    )
    assert opted_in["DISTRIBUTION_ID"] == "<Distribution>"


def test_with_a_site_distribution_the_rebuild_invalidates_that_one_only(
    cfn: Template, source: Template
) -> None:
    by_resource = rebuild_grants(source, cfn, SiteDistributionId="E2SITEDIST123")
    cloudfront = {
        r for r, actions in by_resource.items() if "cloudfront:CreateInvalidation" in actions
    }
    assert cloudfront == {"arn:aws:cloudfront::123456789012:distribution/E2SITEDIST123"}
    resolver = Resolver(
        source,
        {"SiteUrl": SITE, "SiteDistributionId": "E2SITEDIST123", "InvalidateOnPublish": "true"},
    )
    env = resolver.value(
        source["Resources"]["RebuildFunction"]["Properties"]["Environment"]["Variables"]
    )
    assert env["DISTRIBUTION_ID"] == "E2SITEDIST123"
    # The index lists the files on the site's own host, where that distribution serves them.
    assert env["PUBLIC_BASE_URL"] == SITE
    assert resolver.value(source["Outputs"]["SitemapIndexUrl"]["Value"]) == SITE + "/sitemap.xml"


# ---------------------------------------------------------------- table


def test_table_keys_billing_recovery_encryption_ttl_and_retention(cfn: Template) -> None:
    table = cfn["Resources"]["Table"]
    assert table["DeletionPolicy"] == "Retain" and table["UpdateReplacePolicy"] == "Retain"
    props = table["Properties"]
    assert props["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]} == {
        "pk": "S",
        "sk": "S",
    }
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    # The free AWS-owned key, not the billed AWS-managed KMS key (SSEEnabled true).
    assert props["SSESpecification"] == {"SSEEnabled": False}
    assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}


# ---------------------------------------------------------------- bucket and CloudFront


def test_bucket_is_private_encrypted_and_versioned(cfn: Template) -> None:
    props = cfn["Resources"]["Bucket"]["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert props["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    (rule,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in {"AES256", "aws:kms"}
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    expiring = [r for r in props["LifecycleConfiguration"]["Rules"] if r["Status"] == "Enabled"]
    assert any("NoncurrentVersionExpiration" in r for r in expiring)


THIS_DISTRIBUTION = "arn:aws:cloudfront::123456789012:distribution/<Distribution>"
SITE_DISTRIBUTION = "arn:aws:cloudfront::123456789012:distribution/E2SITEDIST123"


def bucket_policy(cfn: Template, source: Template, **overrides: str) -> dict[str, Any]:
    props = Resolver(source, {"SiteUrl": SITE, **overrides}).value(
        cfn["Resources"]["BucketPolicy"]["Properties"]
    )
    assert props["Bucket"] == "<Bucket>"
    return dict(props["PolicyDocument"])


def readers(policy: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    """(action, resource) -> the distribution ARNs allowed, from every Allow statement."""
    allowed: dict[tuple[str, str], set[str]] = {}
    for s in policy["Statement"]:
        if s["Effect"] != "Allow":
            continue
        assert s["Principal"] == {"Service": "cloudfront.amazonaws.com"}
        assert set(s["Condition"]) == {"StringEquals"}
        assert set(s["Condition"]["StringEquals"]) == {"AWS:SourceArn"}
        sources = set(as_list(s["Condition"]["StringEquals"]["AWS:SourceArn"]))
        for action in as_list(s["Action"]):
            for resource in as_list(s["Resource"]):
                allowed.setdefault((action, resource), set()).update(sources)
    return allowed


def test_bucket_policy_lets_this_distribution_read_only_the_public_keys(
    cfn: Template, source: Template
) -> None:
    assert readers(bucket_policy(cfn, source)) == {
        ("s3:GetObject", "<Bucket.Arn>/sitemap*"): {THIS_DISTRIBUTION},
        ("s3:GetObject", "<Bucket.Arn>/robots.txt"): {THIS_DISTRIBUTION},
        ("s3:ListBucket", "<Bucket.Arn>"): {THIS_DISTRIBUTION},
    }


def test_bucket_policy_adds_the_site_distribution_for_sitemaps_only(
    cfn: Template, source: Template
) -> None:
    # The site keeps its own robots.txt: its distribution may not read this stack's one, nor
    # any private key (state/ of the rebuild).
    policy = bucket_policy(cfn, source, SiteDistributionId="E2SITEDIST123")
    assert readers(policy) == {
        ("s3:GetObject", "<Bucket.Arn>/sitemap*"): {THIS_DISTRIBUTION, SITE_DISTRIBUTION},
        ("s3:GetObject", "<Bucket.Arn>/robots.txt"): {THIS_DISTRIBUTION},
        ("s3:ListBucket", "<Bucket.Arn>"): {THIS_DISTRIBUTION, SITE_DISTRIBUTION},
    }


@pytest.mark.parametrize("overrides", [{}, {"SiteDistributionId": "E2SITEDIST123"}])
def test_bucket_policy_denies_plain_http(
    cfn: Template, source: Template, overrides: dict[str, str]
) -> None:
    denies = [
        s for s in bucket_policy(cfn, source, **overrides)["Statement"] if s["Effect"] == "Deny"
    ]
    assert denies == [
        {
            "Sid": "DenyRequestsWithoutTls",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": ["<Bucket.Arn>", "<Bucket.Arn>/*"],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        }
    ]


@pytest.mark.parametrize(
    ("publish", "site_distribution", "allowed"),
    [
        ("true", "", True),
        ("false", "E2SITEDIST123", True),
        ("true", "E2SITEDIST123", False),
    ],
)
def test_robots_txt_is_published_only_where_this_stack_serves_the_host(
    source: Template, publish: str, site_distribution: str, allowed: bool
) -> None:
    resolver = Resolver(
        source,
        {"SiteUrl": SITE, "PublishRobotsTxt": publish, "SiteDistributionId": site_distribution},
    )
    rule = source["Rules"]["RobotsTxtOnlyOnThisStacksDistribution"]
    applies = resolver.truth(rule["RuleCondition"])
    assert (not applies or all(resolver.truth(a["Assert"]) for a in rule["Assertions"])) is allowed


@pytest.mark.parametrize(
    ("value", "ok"),
    [("", True), ("E2QWRUHAPOMQZL", True), ("e2qwruhapomqzl", False), ("arn:aws:x", False)],
)
def test_site_distribution_id_pattern(source: Template, value: str, ok: bool) -> None:
    pattern = source["Parameters"]["SiteDistributionId"]["AllowedPattern"]
    assert (re.fullmatch(pattern, value) is not None) is ok


def test_distribution_uses_oac_https_compression_and_a_cache_control_policy(
    cfn: Template,
) -> None:
    config = cfn["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    (origin,) = config["Origins"]
    assert origin["DomainName"] == {"Fn::GetAtt": ["Bucket", "RegionalDomainName"]}
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": ["OriginAccessControl", "Id"]}
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}
    oac = cfn["Resources"]["OriginAccessControl"]["Properties"]["OriginAccessControlConfig"]
    assert (oac["SigningBehavior"], oac["OriginAccessControlOriginType"]) == ("always", "s3")
    behavior = config["DefaultCacheBehavior"]
    assert behavior["ViewerProtocolPolicy"] == "redirect-to-https"
    assert behavior["Compress"] is True
    assert behavior["AllowedMethods"] == ["GET", "HEAD"]
    assert behavior["CachePolicyId"] == {"Ref": "CachePolicy"}
    cache = cfn["Resources"]["CachePolicy"]["Properties"]["CachePolicyConfig"]
    # MinTTL 0 lets the objects' own max-age (300 s for the index) decide.
    assert cache["MinTTL"] == 0
    assert cache["DefaultTTL"] <= 300 <= cache["MaxTTL"]
    assert cache["MaxTTL"] >= 3600


def test_custom_domain_sets_alias_and_certificate_only_when_both_are_given(
    cfn: Template, source: Template
) -> None:
    config = cfn["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    plain = Resolver(source, {"SiteUrl": SITE}).value(config)
    assert "Aliases" not in plain
    assert plain["ViewerCertificate"] == {"CloudFrontDefaultCertificate": True}

    arn = "arn:aws:acm:us-east-1:123456789012:certificate/abc-1"
    custom = Resolver(
        source, {"SiteUrl": SITE, "DomainName": "sitemaps.example.com", "AcmCertificateArn": arn}
    ).value(config)
    assert custom["Aliases"] == ["sitemaps.example.com"]
    assert custom["ViewerCertificate"]["AcmCertificateArn"] == arn
    assert custom["ViewerCertificate"]["SslSupportMethod"] == "sni-only"
    assert custom["ViewerCertificate"]["MinimumProtocolVersion"].startswith("TLSv1.2")

    half = Resolver(source, {"SiteUrl": SITE, "DomainName": "sitemaps.example.com"})
    assert not half.condition("HasCustomDomain")
    rule = source["Rules"]["CustomDomainNeedsBoth"]
    assert half.truth(rule["RuleCondition"])
    assert not half.truth(rule["Assertions"][0]["Assert"])


# ---------------------------------------------------------------- operations and outputs


def alarm_on(cfn: Template, metric: str, dimension_value: Any) -> dict[str, Any]:
    for alarm in resources_of_type(cfn, "AWS::CloudWatch::Alarm").values():
        props = alarm["Properties"]
        if props["MetricName"] == metric and props["Dimensions"][0]["Value"] == dimension_value:
            return dict(props)
    raise AssertionError(f"no alarm on {metric} of {dimension_value}")


def test_alarms_watch_dlq_depth_message_age_and_rebuild_errors(
    cfn: Template, source: Template
) -> None:
    dlq = alarm_on(
        cfn,
        "ApproximateNumberOfMessagesVisible",
        {"Fn::GetAtt": ["DeadLetterQueue", "QueueName"]},
    )
    assert (dlq["Threshold"], dlq["ComparisonOperator"]) == (0, "GreaterThanThreshold")
    age = alarm_on(cfn, "ApproximateAgeOfOldestMessage", {"Fn::GetAtt": ["Queue", "QueueName"]})
    assert age["Threshold"] == {"Ref": "OldestMessageAgeAlarmSeconds"}
    errors = alarm_on(cfn, "Errors", {"Ref": "RebuildFunction"})
    assert (errors["Namespace"], errors["Threshold"]) == ("AWS/Lambda", 0)
    ingest_errors = alarm_on(cfn, "Errors", {"Ref": "IngestFunction"})
    assert (ingest_errors["Namespace"], ingest_errors["Threshold"]) == ("AWS/Lambda", 0)

    topic = "arn:aws:sns:us-east-1:123456789012:ops"
    for props in (dlq, age, errors, ingest_errors):
        assert Resolver(source, {"SiteUrl": SITE}).value(props).get("AlarmActions") is None
        with_topic = Resolver(source, {"SiteUrl": SITE, "AlarmTopicArn": topic}).value(props)
        assert with_topic["AlarmActions"] == [topic]


SCHEDULE = re.compile(r"rate\((\d+) minutes?\)")


@pytest.mark.parametrize(
    ("schedule", "ok"),
    [
        ("rate(1 minute)", True),
        ("rate(4 minutes)", True),
        ("rate(15 minutes)", True),
        ("rate(16 minutes)", False),
        ("rate(1 hour)", False),
        ("rate(1 minutes)", False),  # EventBridge wants "minute" for 1
        ("cron(0/5 * * * ? *)", False),
    ],
)
def test_a_missing_rebuild_is_a_failure_where_the_schedule_promises_one(
    cfn: Template, schedule: str, ok: bool
) -> None:
    """The rebuild runs on a schedule: a period of its Errors alarm without a data point is a
    run that did not happen, so missing data breaches, and every schedule the template accepts
    starts a run in every such period. Ingest runs when changes come, so a quiet period is
    not a fault there."""
    rebuild = alarm_on(cfn, "Errors", {"Ref": "RebuildFunction"})
    assert rebuild["TreatMissingData"] == "breaching"
    assert rebuild["EvaluationPeriods"] == 1
    pattern = cfn["Parameters"]["RebuildSchedule"]["AllowedPattern"]
    assert re.fullmatch(pattern, cfn["Parameters"]["RebuildSchedule"]["Default"])
    accepted = re.fullmatch(pattern, schedule) is not None
    assert accepted is ok
    if accepted:
        found = SCHEDULE.fullmatch(schedule)
        assert found is not None
        assert int(found[1]) * 60 <= rebuild["Period"]
    ingest = alarm_on(cfn, "Errors", {"Ref": "IngestFunction"})
    assert ingest["TreatMissingData"] == "notBreaching"


@pytest.mark.parametrize(
    ("level", "lambdas"),
    [("DEBUG", "DEBUG"), ("INFO", "INFO"), ("WARNING", "WARN"), ("ERROR", "ERROR")],
)
def test_lambdas_application_log_level_follows_log_level(
    cfn: Template, level: str, lambdas: str
) -> None:
    """With the JSON log format Lambda drops every line below its application log level, so
    each function's is LogLevel's, in Lambda's name of it (which Powertools reads back)."""
    assert level in cfn["Parameters"]["LogLevel"]["AllowedValues"]
    resolver = Resolver(load_template(), {"SiteUrl": SITE, "LogLevel": level})
    for name in ROLES:
        logging = function_named(cfn, name)["Properties"]["LoggingConfig"]
        assert logging["LogFormat"] == "JSON"
        assert resolver.value(logging["ApplicationLogLevel"]) == lambdas
        env = function_named(cfn, name)["Properties"]["Environment"]["Variables"]
        assert resolver.value(env["POWERTOOLS_LOG_LEVEL"]) == level
    # every level LogLevel offers has its Lambda name
    assert set(cfn["Parameters"]["LogLevel"]["AllowedValues"]) == set(
        cfn["Mappings"]["LambdaLogLevel"]
    )


def test_the_shared_layer_is_named_after_the_stack(cfn: Template) -> None:
    (layer,) = resources_of_type(cfn, "AWS::Lambda::LayerVersion").values()
    name = layer["Properties"]["LayerName"]
    one = Resolver(load_template(), {"SiteUrl": SITE}).value(name)
    other = Resolver(load_template(), {"SiteUrl": SITE}, {"AWS::StackName": "another-site"})
    assert one != other.value(name)
    assert one.startswith(Resolver.PSEUDO["AWS::StackName"])


def test_outputs_name_the_operational_endpoints(cfn: Template) -> None:
    outputs = cfn["Outputs"]
    expected = {
        "QueueUrl": {"Ref": "Queue"},
        "QueueArn": {"Fn::GetAtt": ["Queue", "Arn"]},
        "DeadLetterQueueUrl": {"Ref": "DeadLetterQueue"},
        "BucketName": {"Ref": "Bucket"},
        "DistributionId": {"Ref": "Distribution"},
        "DistributionDomainName": {"Fn::GetAtt": ["Distribution", "DomainName"]},
    }
    for name, value in expected.items():
        assert outputs[name]["Value"] == value, name
    assert "SitemapIndexUrl" in outputs
    # What the site's own distribution needs to serve /sitemap* (docs/deploy.md, setup 1).
    assert outputs["BucketRegionalDomainName"]["Value"] == {
        "Fn::GetAtt": ["Bucket", "RegionalDomainName"]
    }
    assert outputs["OriginAccessControlId"]["Value"] == {
        "Fn::GetAtt": ["OriginAccessControl", "Id"]
    }
    assert outputs["CachePolicyId"]["Value"] == {"Ref": "CachePolicy"}


def test_no_setting_lets_a_cached_index_name_a_deleted_file(source: Template) -> None:
    # An index copy may be max-age old at an edge and as old again at the regional edge cache
    # in front of it; a retired file must outlive both, with room for the crawl that follows.
    grace = source["Parameters"]["RetireGraceSeconds"]
    assert grace["MinValue"] > 2 * MAX_AGE_SECONDS
    assert grace["Default"] >= grace["MinValue"]
    assert kind_of("sitemap.xml").cache_control == f"public, max-age={MAX_AGE_SECONDS}"
    policy = source["Resources"]["CachePolicy"]["Properties"]["CachePolicyConfig"]
    assert policy["MinTTL"] == 0  # the object's short max-age is honoured, never raised


def test_invalidation_is_opt_in(source: Template) -> None:
    assert source["Parameters"]["InvalidateOnPublish"]["Default"] == "false"
