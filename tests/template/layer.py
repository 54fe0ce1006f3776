"""The shared layer's requirement file and the Powertools layer's package list, as read here.

``layers/shared/requirements.txt`` is what ``sam build`` installs into the shared layer (``make
lock`` writes it from uv.lock); ``layers/shared/powertools-layer.txt`` lists what the AWS-managed
Powertools layer ships, which ``make lock`` leaves out of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.template.cfn import ROOT

LAYER_FILE = ROOT / "layers" / "shared" / "requirements.txt"
POWERTOOLS_LAYER_FILE = ROOT / "layers" / "shared" / "powertools-layer.txt"
#: What the python3.12 runtime ships, which the Powertools layer's build removes from its own
#: (layers/shared/powertools-layer.txt): the AWS SDK and what it requires.
RUNTIME = {"boto3", "botocore", "s3transfer", "urllib3", "python-dateutil", "six", "jmespath"}


def powertools_layer() -> tuple[int, set[str]]:
    """The Powertools layer version powertools-layer.txt describes, and the distributions it
    lists as that layer's (the lines ``make lock`` leaves out of the layer's requirements)."""
    version = None
    names: set[str] = set()
    for line in POWERTOOLS_LAYER_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("# layer version:"):
            version = int(line.split(":", 1)[1])
        elif line.strip() and not line.startswith("#"):
            names.add(canonicalize_name(line.strip()))
    assert version is not None, f"{POWERTOOLS_LAYER_FILE.name} names no layer version"
    return version, names


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    hashes: frozenset[str]


def parse_requirements(path: Path) -> set[Pin]:
    """The `name==version ; marker --hash=...` lines of a pip requirement file."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    pins: set[Pin] = set()
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        spec, *options = line.split(" --hash=")
        requirement = Requirement(spec.strip())
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{path.name}: {line.strip()} is not pinned"
        hashes = frozenset(option.strip() for option in options)
        pins.add(Pin(canonicalize_name(requirement.name), specifier.version, hashes))
    return pins
