"""The README's deploy steps name parameters and stack outputs the template really has."""

from __future__ import annotations

import re

from tests.template.cfn import ROOT, load_template

README = (ROOT / "README.md").read_text(encoding="utf-8")
DEPLOY = README[
    README.index("## Deploy\n") : README.index("\n## ", README.index("## Deploy\n") + 1)
]


def test_deploy_names_existing_outputs() -> None:
    named = set(re.findall(r"stack output `([A-Za-z0-9]+)`", DEPLOY))
    assert {"BucketRegionalDomainName", "OriginAccessControlId", "CachePolicyId"} <= named
    assert named <= set(load_template()["Outputs"])


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
    section = README[README.index("## Configuration\n") :]
    table = section[: section.index("\n\n", section.index("| parameter |"))]
    missing = set(load_template()["Parameters"]) - set(re.findall(r"`([A-Za-z0-9]+)`", table))
    assert not missing, missing
