"""Read template.yaml the way CloudFormation and SAM do, offline.

- `load_template()` parses the YAML with its short intrinsic tags (`!Ref`, `!Sub`, `!If`, ...) into
  the long JSON form (`{"Ref": ...}`, `{"Fn::Sub": ...}`), as plain dicts and lists.
- `sam_transform()` applies the SAM transform with aws-sam-translator, without AWS credentials.
- `Resolver` evaluates parameters, conditions and intrinsic functions (mappings included) far
  enough to read the values the functions get (resources become `<LogicalId>` /
  `<LogicalId.Attribute>`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

from cfnlint.decode import cfn_yaml
from samtranslator.translator.managed_policy_translator import ManagedPolicyLoader
from samtranslator.translator.transform import transform

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"

Template = dict[str, Any]

_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")


def load_template(path: Path = TEMPLATE) -> Template:
    """The template as plain JSON-compatible data, intrinsic tags in their long form."""
    raw = cfn_yaml.load(str(path))
    return cast(Template, json.loads(json.dumps(raw)))


class _NoManagedPolicies(ManagedPolicyLoader):  # type: ignore[misc]
    """SAM asks IAM for managed policy names only when `Policies` names one; none do here."""

    def __init__(self) -> None:
        pass

    def load(self) -> dict[str, str]:
        return {}


def sam_transform(template: Template, parameters: Mapping[str, str]) -> Template:
    """The CloudFormation template SAM would deploy, computed offline.

    Local `CodeUri`/`ContentUri` paths become placeholder S3 URIs first (what `sam package`
    does after uploading), because the translator accepts only S3 locations.
    """
    fragment = copy.deepcopy(template)
    for resource in fragment["Resources"].values():
        props = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(props.get(key), str):
                props[key] = "s3://offline-build/" + props[key].strip("/")
    return cast(Template, transform(fragment, dict(parameters), _NoManagedPolicies()))


def referenced_ids(value: Any) -> Iterator[str]:
    """Every logical id or parameter name that `value` refers to (Ref, GetAtt, Sub)."""
    if isinstance(value, dict):
        for key, arg in value.items():
            if key == "Ref" and isinstance(arg, str):
                yield arg
            elif key == "Fn::GetAtt":
                parts = arg.split(".", 1) if isinstance(arg, str) else arg
                yield parts[0]
            elif key == "Fn::Sub":
                text, names = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])
                for var in _SUB_VAR.findall(text):
                    name = var.split(".", 1)[0]
                    if name not in names:
                        yield name
                yield from referenced_ids(names)
            else:
                yield from referenced_ids(arg)
    elif isinstance(value, list):
        for item in value:
            yield from referenced_ids(item)


class Resolver:
    """Evaluates intrinsic functions against parameter values (defaults + overrides)."""

    PSEUDO: ClassVar[Mapping[str, str]] = {
        "AWS::Region": "us-east-1",
        "AWS::AccountId": "123456789012",
        "AWS::Partition": "aws",
        "AWS::StackName": "sitemap-updater",
        "AWS::StackId": (
            "arn:aws:cloudformation:us-east-1:123456789012:stack/sitemap-updater/"
            "1c2fa620-982a-11e3-aff7-50e2416294e0"
        ),
        "AWS::URLSuffix": "amazonaws.com",
    }

    def __init__(
        self,
        template: Template,
        overrides: Mapping[str, str] | None = None,
        pseudo: Mapping[str, str] | None = None,
    ) -> None:
        self.template = template
        self.pseudo = {**self.PSEUDO, **(pseudo or {})}
        self.params: dict[str, str] = {}
        for name, spec in template.get("Parameters", {}).items():
            if "Default" in spec:
                self.params[name] = str(spec["Default"])
        self.params.update(overrides or {})

    def condition(self, name: str) -> bool:
        return self.truth(self.template["Conditions"][name])

    def truth(self, expr: Any) -> bool:
        """A condition expression (Equals/Not/And/Or/Condition) evaluated."""
        if isinstance(expr, dict) and len(expr) == 1:
            ((fn, arg),) = expr.items()
            if fn == "Fn::Equals":
                return bool(self.value(arg[0]) == self.value(arg[1]))
            if fn == "Fn::Not":
                return not self.truth(arg[0])
            if fn == "Fn::And":
                return all(self.truth(a) for a in arg)
            if fn == "Fn::Or":
                return any(self.truth(a) for a in arg)
            if fn == "Condition":
                return self.condition(arg)
        raise ValueError(f"unsupported condition expression {expr!r}")

    def value(self, expr: Any) -> Any:
        """`expr` with every intrinsic function applied; NoValue becomes None."""
        if isinstance(expr, list):
            return [v for v in (self.value(e) for e in expr) if v is not None]
        if not isinstance(expr, dict):
            return expr
        if len(expr) == 1:
            ((fn, arg),) = expr.items()
            if fn == "Ref":
                return self._ref(arg)
            if fn == "Fn::GetAtt":
                logical, attr = arg.split(".", 1) if isinstance(arg, str) else arg
                return f"<{logical}.{attr}>"
            if fn == "Fn::Sub":
                return self._sub(arg)
            if fn == "Fn::If":
                name, yes, no = arg
                return self.value(yes if self.condition(name) else no)
            if fn == "Fn::Join":
                sep, items = arg
                return sep.join(str(v) for v in self.value(items))
            if fn == "Fn::Split":
                sep, text = arg
                return str(self.value(text)).split(sep)
            if fn == "Fn::Select":
                index, items = arg
                return self.value(items)[int(self.value(index))]
            if fn == "Fn::FindInMap":
                mapping, top, second = (self.value(a) for a in arg)
                return self.template["Mappings"][mapping][top][second]
        return {k: v for k, v in ((k, self.value(v)) for k, v in expr.items()) if v is not None}

    def _ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return None
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.params:
            return self.params[name]
        if name in self.template.get("Parameters", {}):
            raise KeyError(f"parameter {name} has no default and no value was given")
        return f"<{name}>"

    def _sub(self, arg: Any) -> str:
        text, names = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])

        def one(match: re.Match[str]) -> str:
            var = match.group(1)
            if var in names:
                return str(self.value(names[var]))
            if "." in var:
                logical, attr = var.split(".", 1)
                return f"<{logical}.{attr}>"
            return str(self._ref(var))

        return _SUB_VAR.sub(one, text)


def resources_of_type(template: Template, type_name: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == type_name}
