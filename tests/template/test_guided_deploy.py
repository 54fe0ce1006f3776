"""The first deploy as docs/deploy.md tells it: `sam deploy --guided`, SiteUrl typed, Enter for
everything else, and the stack is deployed; then a plain `sam deploy` that keeps what the guided
one saved.

SAM CLI's own `deploy` command runs here, prompts, samconfig.toml and its deploy context
included, with the few calls that would reach AWS replaced: the lookup of its managed bucket
(`manage_stack`), the ECR lookup for image functions (none here), the upload
(`PackageContext.run`, which here writes the template where the upload would have written the
packaged one) and CloudFormation itself (the `Deployer`'s change set calls, which record the
parameters they would send and whether the change set was executed).
"""

from __future__ import annotations

import re
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest
from click.testing import CliRunner
from samcli.cli.main import cli
from samcli.commands.deploy import command as deploy_command
from samcli.commands.deploy import guided_context
from samcli.commands.deploy.guided_context import GuidedContext
from samcli.commands.package.package_context import PackageContext
from samcli.lib.deploy.deployer import Deployer
from samcli.lib.utils import version_checker

from tests.template.cfn import ROOT, TEMPLATE, Resolver, Template, load_template

SITE = "https://www.example.com"
KEY = "0123456789abcdef"
SOURCE = load_template()
#: The questions `sam deploy --guided` asks besides the parameters, in order, each answered with
#: Enter: the stack and region first, then the rest after the parameters (docs/deploy.md lists
#: them, with what Enter answers: tests/docs/test_deploy_docs.py).
GUIDED_QUESTIONS = (
    "Stack Name",
    "AWS Region",
    "Confirm changes before deploy",
    "Allow SAM CLI IAM role creation",
    "Disable rollback",
    "Save arguments to configuration file",
    "SAM configuration file",
    "SAM configuration environment",
)
AFTER_PARAMETERS = len(GUIDED_QUESTIONS) - 2


def broken_rules(source: Template, values: dict[str, str]) -> list[str]:
    """The AssertDescription of every rule assertion the values break (empty: deployable)."""
    resolver = Resolver(source, values)
    broken = []
    for rule in source["Rules"].values():
        if "RuleCondition" in rule and not resolver.truth(rule["RuleCondition"]):
            continue
        broken += [
            a["AssertDescription"] for a in rule["Assertions"] if not resolver.truth(a["Assert"])
        ]
    return broken


def shown(text: str) -> str:
    """A question as the terminal shows it: SAM's bold escapes and the indentation removed."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", text).split())


@dataclass
class Deploys:
    """What the deploys would have sent to CloudFormation: each change set's parameters, and
    the change sets executed."""

    parameters: list[dict[str, str]] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Deploys]:
    """A project folder holding template.yaml and samconfig.toml, where `sam deploy` records
    each deploy it would make instead of making it."""
    shutil.copy(TEMPLATE, tmp_path / "template.yaml")
    shutil.copy(ROOT / "samconfig.toml", tmp_path / "samconfig.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAM_CLI_TELEMETRY", "0")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # SAM CLI sets boto3's default session for its own clients: the test's ends with it
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    deploys = Deploys()

    def package(context: PackageContext) -> None:
        # the packaged template, as the upload would write it (the code's S3 locations aside)
        shutil.copy(tmp_path / "template.yaml", context.output_template_file)

    def create_change_set(
        deployer: Deployer,
        stack_name: str,
        cfn_template: str,
        parameter_values: Any,
        *_: Any,
        **__: Any,
    ) -> tuple[dict[str, str], str]:
        deploys.parameters.append(
            {p["ParameterKey"]: p["ParameterValue"] for p in parameter_values}
        )
        return {"Id": f"change-set-{len(deploys.parameters)}"}, "CREATE"

    def execute(deployer: Deployer, changeset_id: str, *_: Any, **__: Any) -> None:
        deploys.executed.append(changeset_id)

    monkeypatch.setattr(guided_context, "manage_stack", lambda **_: "managed-bucket")
    monkeypatch.setattr(deploy_command, "manage_stack", lambda **_: "managed-bucket")
    # asks ECR for the repositories of image functions; the template has none
    monkeypatch.setattr(GuidedContext, "prompt_image_repository", lambda self, *_: {})
    monkeypatch.setattr(PackageContext, "run", package)
    monkeypatch.setattr(Deployer, "create_and_wait_for_changeset", create_change_set)
    monkeypatch.setattr(Deployer, "get_last_event_time", lambda self, *_, **__: 0)
    monkeypatch.setattr(Deployer, "execute_changeset", execute)
    monkeypatch.setattr(Deployer, "wait_for_execute", lambda self, *_, **__: None)
    monkeypatch.setattr(version_checker, "_inform_newer_version", lambda **_: None)
    # click asks a question without a default again on every Enter, for ever: stop there
    real_prompt, real_confirm = guided_context.prompt, guided_context.confirm

    def prompt(text: str, **kwargs: Any) -> Any:
        deploys.prompts.append(shown(text))
        if kwargs.get("default") is None and "SiteUrl" not in text:
            pytest.fail(f"Enter cannot answer {text.strip()!r}: it has no default")
        return real_prompt(text, **kwargs)

    def confirm(text: str, **kwargs: Any) -> Any:
        deploys.prompts.append(shown(text))
        return real_confirm(text, **kwargs)

    monkeypatch.setattr(guided_context, "prompt", prompt)
    monkeypatch.setattr(guided_context, "confirm", confirm)
    return tmp_path, deploys


def answers(**typed: str) -> str:
    """stdin for `sam deploy --guided`: stack name and region as offered, then each parameter in
    template order (typed, or Enter for its default), then Enter for every later question."""
    lines = ["", ""]
    lines += [typed.get(name, "") for name in SOURCE["Parameters"]]
    lines += [""] * AFTER_PARAMETERS
    return "\n".join(lines) + "\n"


def deploy(folder: Path, *args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(cli, ["deploy", *args], input=stdin, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_guided_deploy_deploys_with_the_site_typed_and_enter_for_the_rest(
    project: tuple[Path, Deploys],
) -> None:
    folder, deploys = project
    output = deploy(folder, "--guided", stdin=answers(SiteUrl=SITE))
    assert "Abort" not in output
    # the change set was executed: no "Deploy this changeset? [y/N]" took Enter for No
    assert deploys.executed == ["change-set-1"]
    assert "Deploy this changeset?" not in output
    (sent,) = deploys.parameters
    saved = tomllib.loads((folder / "samconfig.toml").read_text(encoding="utf-8"))
    assert saved["default"]["global"]["parameters"]["stack_name"] == "sitemap-updater"
    assert saved["default"]["deploy"]["parameters"]["confirm_changeset"] is False
    assert sent["SiteUrl"] == SITE
    assert sent["IndexNowKey"] == ""  # IndexNow stays off, as the parameter's default says
    # every other parameter kept its template default
    for name, spec in SOURCE["Parameters"].items():
        if name != "SiteUrl":
            assert sent[name] == str(spec["Default"]), name
    # and CloudFormation's rules accept that deploy
    assert broken_rules(SOURCE, sent) == []


def test_the_questions_after_the_parameters_are_the_documented_ones(
    project: tuple[Path, Deploys],
) -> None:
    folder, deploys = project
    deploy(folder, "--guided", stdin=answers(SiteUrl=SITE))
    parameters = [f"Parameter {name}" for name in SOURCE["Parameters"]]
    asked = [p for p in deploys.prompts if p not in parameters]
    assert asked == [*GUIDED_QUESTIONS]
    assert [p for p in deploys.prompts if p in parameters] == parameters


def test_a_later_plain_deploy_keeps_the_indexnow_key_the_guided_one_set(
    project: tuple[Path, Deploys],
) -> None:
    folder, deploys = project
    chosen = {"SiteUrl": SITE, "SiteDistributionId": "E2SITEDIST123", "IndexNowKey": KEY}
    deploy(folder, "--guided", stdin=answers(**chosen))
    saved = tomllib.loads((folder / "samconfig.toml").read_text(encoding="utf-8"))
    assert f'IndexNowKey="{KEY}"' in saved["default"]["deploy"]["parameters"]["parameter_overrides"]

    deploy(folder)  # `sam deploy` alone, from samconfig.toml
    guided, plain = deploys.parameters
    assert deploys.executed == ["change-set-1", "change-set-2"]
    assert plain["IndexNowKey"] == guided["IndexNowKey"] == KEY
    assert plain["SiteDistributionId"] == "E2SITEDIST123"
    assert broken_rules(SOURCE, plain) == []


def test_no_parameter_is_asked_in_a_way_that_enter_cannot_answer() -> None:
    # SAM asks a NoEcho parameter with no default, again on every empty answer, and never saves
    # it to samconfig.toml: the guided deploy as documented could not finish.
    assert [name for name, spec in SOURCE["Parameters"].items() if spec.get("NoEcho")] == []
