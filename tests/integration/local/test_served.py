"""``sitemap-updater local``: the template's schedules, the ways it refuses to start, and SIGTERM.

Its whole run (the stack served on 127.0.0.1, the other commands against it, Ctrl-C) is
``tests/docs/test_local_deployment.py``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sitemap_updater_local import cli
from sitemap_updater_local.deployment import LocalDeployment
from sitemap_updater_local.deployment.schedules import Scheduled, rate_seconds, schedules
from sitemap_updater_local.deployment.stack.template import TemplateError

SITE = "https://www.example.com"
#: the rebuild's schedule in the stand-in template
TICK = (
    "        Tick:\n          Type: Schedule\n          Properties: { Schedule: rate(5 minutes) }\n"
)


@pytest.mark.parametrize(
    ("expression", "seconds"),
    [
        ("rate(1 minute)", 60),
        ("rate(4 minutes)", 240),
        ("rate(1 hour)", 3_600),
        ("rate(7 days)", 604_800),
    ],
)
def test_a_rate_is_its_period(expression: str, seconds: int) -> None:
    assert rate_seconds(expression, "here") == seconds


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("cron(0 12 * * ? *)", "only rate(VALUE UNIT) expressions are"),
        ("rate(0 minutes)", "only rate(VALUE UNIT) expressions are"),
        ("rate(5 seconds)", "only rate(VALUE UNIT) expressions are"),
        ("rate(5 minute)", "must say rate(5 minutes)"),
        ("rate(1 hours)", "must say rate(1 hour)"),
    ],
)
def test_an_expression_the_local_deployment_cannot_run_is_named(
    expression: str, message: str
) -> None:
    with pytest.raises(TemplateError, match=r"^function F, event E: schedule .*") as raised:
        rate_seconds(expression, "function F, event E")
    assert message in str(raised.value)
    assert repr(expression) in str(raised.value)


def _events(stack_template: Path, tmp_path: Path, events: str) -> Path:
    """A copy of the stand-in template whose rebuild function has ``events``."""
    shutil.copytree(stack_template.parent, tmp_path / "stack")
    path = tmp_path / "stack" / "template.yaml"
    text = path.read_text()
    assert TICK in text
    path.write_text(text.replace(TICK, events))
    return path


def test_the_schedules_are_the_templates_enabled_ones_with_their_input(
    stack_template: Path, tmp_path: Path
) -> None:
    template = _events(
        stack_template,
        tmp_path,
        TICK + "        Full:\n          Type: Schedule\n          Properties:\n"
        "            Schedule: rate(1 day)\n            Input: '{\"full_rebuild\": true}'\n"
        "        Off:\n          Type: Schedule\n          Properties:\n"
        "            Schedule: cron(0 12 * * ? *)\n            Enabled: false\n",
    )
    with LocalDeployment(template, SITE) as dep:
        found = schedules(dep.template)
    assert found == [
        Scheduled("Rebuild", "Tick", "rate(5 minutes)", 300, None),
        Scheduled("Rebuild", "Full", "rate(1 day)", 86_400, {"full_rebuild": True}),
    ]


def test_the_real_templates_schedules_follow_its_parameters() -> None:
    parameters = {"RebuildSchedule": "rate(1 minute)", "ObserveIntervalMinutes": "5"}
    with LocalDeployment(parameters=parameters) as dep:
        found = {(s.function, s.event): s.seconds for s in schedules(dep.template)}
    assert found == {
        ("RebuildFunction", "Schedule"): 60,
        ("RebuildFunction", "Reconcile"): 604_800,
        ("ObserveFunction", "Schedule"): 300,
    }


def test_a_port_in_use_ends_with_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = cli.main(["local", "--port", str(port), "--log-file", str(tmp_path / "log")])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"sitemap-updater local: --port {port}: ")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--parameter", "NoSuchParam=1"], "NoSuchParam"),
        (["--parameter", "MaxReceiveCount"], "--parameter 'MaxReceiveCount': must be KEY=VALUE"),
        (["--speed", "0"], "--speed 0: must be a number above 0"),
        (["--speed", "inf"], "--speed inf: must be a number above 0"),
        (["--port", "70000"], "--port 70000: must be 0 to 65535"),
    ],
)
def test_unusable_arguments_end_with_one_line_and_status_2(
    arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["local", *arguments, "--log-file", str(tmp_path / "log")])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("sitemap-updater local: ")
    assert message in err[0]


def test_sigterm_stops_it_with_one_line_and_status_143(tmp_path: Path) -> None:
    local = subprocess.Popen(
        [sys.executable, "-m", "sitemap_updater_local.cli", "local", "--env-file", "local.env"],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert local.stdout is not None
    try:
        while not (line := local.stdout.readline()).startswith("export TABLE_NAME="):
            assert line, local.poll()
    finally:
        local.terminate()
        _, err = local.communicate(timeout=120)
    assert local.returncode == 143
    assert err.splitlines()[-1:] == ["sitemap-updater local: terminated"]
    assert (
        (tmp_path / "local.env").read_text().startswith("export AWS_ENDPOINT_URL=http://127.0.0.1:")
    )
