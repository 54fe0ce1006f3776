"""Run the template tools (SAM CLI, cfn-lint, checkov) of the test interpreter's environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.template.cfn import ROOT

BIN = Path(sys.executable).parent


def tool_env() -> dict[str, str]:
    """PATH with this environment's bin first, so `sam build` finds its python3.12 there."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["SAM_CLI_TELEMETRY"] = "0"
    env["AWS_DEFAULT_REGION"] = "us-east-1"
    return env


def run_tool(
    args: Sequence[str], cwd: Path = ROOT, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run `BIN/args[0]` with `args[1:]`; output captured as text."""
    return subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        cwd=cwd,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
