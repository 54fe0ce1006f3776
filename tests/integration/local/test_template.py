"""Reading template.yaml offline: parameters, conditions and intrinsic functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemap_updater_local.deployment.stack.template import Template, TemplateError

TEMPLATE = """
Parameters:
  Name: {Type: String, Default: site}
  Size: {Type: Number, Default: 5, MinValue: 1, MaxValue: 10}
  Mode: {Type: String, Default: a, AllowedValues: [a, b]}
Conditions:
  IsB: !Equals [!Ref Mode, b]
  NotB: !Not [!Condition IsB]
Mappings:
  Tiers: {a: {cpu: "1"}, b: {cpu: "2"}}
Resources:
  Thing:
    Type: Custom::Thing
    Properties:
      Plain: !Sub "${Name}-${AWS::Region}-${!Literal}"
      WithVars: !Sub ["${X}/${Name}", {X: !Ref Size}]
      Joined: !Join [",", [a, !Ref Name]]
      Picked: !Select [1, !Split ["/", "x/y/z"]]
      Tier: !FindInMap [Tiers, !Ref Mode, cpu]
      Choice: !If [IsB, bee, !Ref AWS::NoValue]
      List: [one, !If [NotB, two, !Ref AWS::NoValue]]
      Att: !GetAtt Other.Arn
  Other:
    Type: AWS::SQS::Queue
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    file = tmp_path / "t.yaml"
    file.write_text(TEMPLATE)
    return file


def test_intrinsics_resolve_with_defaults(path: Path) -> None:
    tpl = Template.load(path)
    tpl.bind("Other", "https://queue", Arn="arn:other")
    props = tpl.properties("Thing")
    assert props == {
        "Plain": "site-us-east-1-${Literal}",
        "WithVars": "5/site",
        "Joined": "a,site",
        "Picked": "y",
        "Tier": "1",
        "List": ["one", "two"],
        "Att": "arn:other",
    }


def test_overrides_flip_conditions(path: Path) -> None:
    tpl = Template.load(path, {"Mode": "b", "Size": "10"})
    tpl.bind("Other", "u", Arn="a")
    props = tpl.properties("Thing")
    assert (props["Choice"], props["List"], props["Tier"]) == ("bee", ["one"], "2")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"Size": "11"}, r"parameter Size=11 must be <= 10"),
        ({"Size": "many"}, r"parameter Size='many' must be a number"),
        ({"Mode": "c"}, r"parameter Mode='c' must be one of \['a', 'b'\]"),
        ({"Nope": "1"}, r"parameter override 'Nope' is not declared"),
    ],
)
def test_bad_overrides_name_parameter_value_and_rule(
    path: Path, overrides: dict[str, str], message: str
) -> None:
    with pytest.raises(TemplateError, match=message):
        Template.load(path, overrides)


def test_reference_to_an_uncreated_resource_is_an_error(path: Path) -> None:
    with pytest.raises(TemplateError, match=r"Fn::GetAtt Other.Arn: not available"):
        Template.load(path).properties("Thing")


def test_missing_template_is_reported(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match=r"does not exist"):
        Template.load(tmp_path / "missing.yaml")
