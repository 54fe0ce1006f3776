"""The observer's part of template.yaml: each engine's secret is read only when that engine is
on and only that secret; the credentials never reach the environment; the schedule, the budget
under the quota, and the alarms with their defaults, missing data counted as breaching."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sitemap_updater.observe.settings import INSPECTION_DAILY_QUOTA
from sitemap_updater.observe.signals import ALARM_METRICS, SEARCH_CONSOLE_METRICS
from tests.template.cfn import Template, load_template, sam_transform

SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:{}-AbCdEf"


@pytest.fixture(scope="module")
def source() -> Template:
    return load_template()


def _observer_role_statements(parameters: dict[str, str]) -> list[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        cfn = sam_transform(load_template(), {"SiteUrl": "https://www.example.com", **parameters})
    role = cfn["Resources"]["ObserveFunction"]["Properties"]["Role"]["Fn::GetAtt"][0]
    statements = []
    for policy in cfn["Resources"][role]["Properties"]["Policies"]:
        statements += policy["PolicyDocument"]["Statement"]
    return statements


def _secret_grants(statements: list[dict[str, Any]], on: dict[str, bool]) -> list[Any]:
    """The secretsmanager grants, with each conditional statement as its condition says."""
    conditions = {"UseSearchConsole": on["google"], "UseBing": on["bing"]}
    found = []
    for statement in statements:
        if "Fn::If" in statement:
            name, yes, no = statement["Fn::If"]
            statement = yes if conditions[name] else no
            if statement == {"Ref": "AWS::NoValue"}:
                continue
        if str(statement["Action"]).startswith("secretsmanager:"):
            found.append((statement["Action"], statement["Resource"]))
    return found


def test_each_secret_is_read_only_when_its_engine_is_on_and_only_that_secret() -> None:
    statements = _observer_role_statements({})
    assert _secret_grants(statements, {"google": False, "bing": False}) == []
    assert _secret_grants(statements, {"google": True, "bing": False}) == [
        ("secretsmanager:GetSecretValue", {"Ref": "SearchConsoleSecretArn"})
    ]
    assert _secret_grants(statements, {"google": True, "bing": True}) == [
        ("secretsmanager:GetSecretValue", {"Ref": "SearchConsoleSecretArn"}),
        ("secretsmanager:GetSecretValue", {"Ref": "BingSecretArn"}),
    ]


def test_the_engines_are_on_exactly_when_their_secret_is_named(source: Template) -> None:
    conditions = source["Conditions"]
    assert conditions["UseSearchConsole"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "SearchConsoleSecretArn"}, ""]}]
    }
    assert conditions["UseBing"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "BingSecretArn"}, ""]}]}
    for name in ("SearchConsoleSecretArn", "BingSecretArn"):
        parameter = source["Parameters"][name]
        assert parameter["Default"] == ""
        pattern = re.compile(parameter["AllowedPattern"])
        assert pattern.fullmatch(SECRET_ARN.format("google"))
        assert not pattern.fullmatch('{"type": "service_account", "private_key": "..."}')
        assert not pattern.fullmatch("a-plain-bing-api-key")


def test_only_the_secrets_arns_reach_the_environment(source: Template) -> None:
    variables = source["Resources"]["ObserveFunction"]["Properties"]["Environment"]["Variables"]
    secret_like = {name for name in variables if "SECRET" in name or "KEY" in name}
    assert secret_like == {"SEARCH_CONSOLE_SECRET_ARN", "BING_SECRET_ARN"}
    assert variables["SEARCH_CONSOLE_SECRET_ARN"] == {"Ref": "SearchConsoleSecretArn"}
    assert variables["BING_SECRET_ARN"] == {"Ref": "BingSecretArn"}


def test_the_schedule_and_the_budget_stay_under_the_quota(source: Template) -> None:
    observer = source["Resources"]["ObserveFunction"]["Properties"]
    schedule = observer["Events"]["Schedule"]["Properties"]["Schedule"]
    assert schedule == {"Fn::Sub": "rate(${ObserveIntervalMinutes} minutes)"}
    assert source["Parameters"]["ObserveIntervalMinutes"]["Default"] == 60
    budget = source["Parameters"]["ObserveDailyApiCalls"]
    assert budget["MaxValue"] <= INSPECTION_DAILY_QUOTA
    assert budget["Default"] <= budget["MaxValue"]
    assert observer["ReservedConcurrentExecutions"] == 1  # one run at a time spends the budget


def _alarms(source: Template) -> dict[str, dict[str, Any]]:
    return {
        lid: res["Properties"] | {"Condition": res.get("Condition")}
        for lid, res in source["Resources"].items()
        if res["Type"] == "AWS::CloudWatch::Alarm"
    }


def test_an_alarm_watches_each_observer_metric_and_counts_a_missing_run_as_breaching(
    source: Template,
) -> None:
    alarms = {
        p["MetricName"]: p for p in _alarms(source).values() if p["MetricName"] in ALARM_METRICS
    }
    assert set(alarms) == set(ALARM_METRICS)
    period = {
        "Fn::FindInMap": ["ObserveAlarmPeriods", {"Ref": "ObserveIntervalMinutes"}, "Seconds"]
    }
    for name, alarm in alarms.items():
        assert alarm["Namespace"] == "SitemapUpdater"
        assert alarm["TreatMissingData"] == "breaching", name  # every run sends each of them
        assert alarm["Period"] == period
        threshold = alarm["Threshold"]
        if isinstance(threshold, dict):
            assert "Default" in source["Parameters"][threshold["Ref"]]
    # the shares' alarms look at the bound of an interval, in more than one period
    for name in ("UnhealthyPercentLowerBoundMax", "IndexedDropPercentMax"):
        assert alarms[name]["EvaluationPeriods"] == alarms[name]["DatapointsToAlarm"] == 3
    google_only = {name for name, alarm in alarms.items() if alarm["Condition"]}
    assert google_only == set(SEARCH_CONSOLE_METRICS)
    assert {alarms[name]["Condition"] for name in google_only} == {"UseSearchConsole"}


def test_an_errors_alarm_watches_the_observer_function(source: Template) -> None:
    (errors,) = [
        p
        for p in _alarms(source).values()
        if p["MetricName"] == "Errors" and p["Dimensions"][0]["Value"] == {"Ref": "ObserveFunction"}
    ]
    assert (errors["Namespace"], errors["Statistic"], errors["Threshold"]) == (
        "AWS/Lambda",
        "Sum",
        0,
    )
    assert errors["TreatMissingData"] == "breaching"  # no run in two periods of the schedule


def test_each_alarm_period_is_two_runs_of_a_schedule_that_divides_the_day(
    source: Template,
) -> None:
    allowed = source["Parameters"]["ObserveIntervalMinutes"]["AllowedValues"]
    periods = source["Mappings"]["ObserveAlarmPeriods"]
    assert {str(m) for m in allowed} == set(periods)
    for minutes in allowed:
        seconds = periods[str(minutes)]["Seconds"]
        assert 1440 % minutes == 0 and seconds == 2 * 60 * minutes
        # CloudWatch: a multiple of 60 s, and at most 1 day of periods under an hour, 7 above
        assert seconds % 60 == 0
        assert 3 * seconds <= (604_800 if seconds >= 3600 else 86_400)
