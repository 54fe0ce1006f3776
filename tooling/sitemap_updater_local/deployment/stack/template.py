"""Read template.yaml offline and resolve the intrinsic functions the local deployment needs.

The template is parsed with cfn-lint's YAML decoder (it understands the short ``!Ref``/``!Sub``/...
tags and needs no network). :class:`Template` resolves parameters (their defaults plus
overrides, checked against ``AllowedValues``/``MinValue``/``MaxValue``), conditions, and the
intrinsic functions ``Ref``, ``Fn::GetAtt``, ``Fn::Sub``, ``Fn::If``, ``Fn::Join``,
``Fn::Select``, ``Fn::Split``, ``Fn::FindInMap`` and ``Fn::Equals``/``Not``/``And``/``Or``.

Resources get their physical values (``Ref`` and attributes) from :meth:`Template.bind` once the
local deployment has created them, so a value that refers to a resource which does not exist yet
raises :class:`TemplateError` instead of silently producing a wrong name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfnlint.decode import cfn_yaml

REGION = "us-east-1"
ACCOUNT_ID = "123456789012"
#: the stack's name unless told another (``AWS::StackName``; the resources' names start with it)
LOCAL_STACK_NAME = "sitemap-updater-local"

#: A value that resolves to AWS::NoValue: the key (or list item) holding it disappears.
_NO_VALUE = object()
_SUB_VAR = re.compile(r"\$\{([^}]*)\}")


class TemplateError(ValueError):
    """The template cannot be read or resolved; the message names the item and the rule."""


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """A SAM function as the local deployment needs it (Globals already merged)."""

    logical_id: str
    code_path: Path
    handler_name: str
    timeout_seconds: int
    memory_mb: int
    environment: dict[str, Any]
    events: dict[str, dict[str, Any]]


@dataclass
class Template:
    """A loaded template with resolved parameters and bound resource values."""

    path: Path
    body: dict[str, Any]
    parameters: dict[str, str]
    stack_name: str = LOCAL_STACK_NAME
    _refs: dict[str, str] = field(default_factory=dict)
    _attrs: dict[tuple[str, str], str] = field(default_factory=dict)
    _conditions: dict[str, bool] = field(default_factory=dict)
    _placeholders: set[str] = field(default_factory=set)

    @classmethod
    def load(
        cls,
        path: str | Path,
        overrides: Mapping[str, str] | None = None,
        stack_name: str = LOCAL_STACK_NAME,
    ) -> Template:
        file = Path(path)
        body = read_body(file)
        params = resolve_parameters(body.get("Parameters", {}), overrides or {})
        tpl = cls(path=file, body=body, parameters=params, stack_name=stack_name)
        tpl._conditions = {
            name: tpl._condition_value(expr) for name, expr in body.get("Conditions", {}).items()
        }
        return tpl

    # --- resources --------------------------------------------------------------------------

    def resources(self, resource_type: str) -> dict[str, dict[str, Any]]:
        """Resources of one type whose ``Condition`` (if any) is true, by logical id."""
        found = {}
        for logical_id, res in self.body.get("Resources", {}).items():
            if res.get("Type") != resource_type:
                continue
            cond = res.get("Condition")
            if cond is not None and not self.condition(cond):
                continue
            found[logical_id] = res
        return found

    def properties(self, logical_id: str) -> dict[str, Any]:
        """A resource's properties, fully resolved."""
        res = self.body.get("Resources", {}).get(logical_id)
        if res is None:
            raise TemplateError(f"resource {logical_id!r} is not in the template")
        resolved = self.resolve(res.get("Properties", {}))
        return resolved if isinstance(resolved, dict) else {}

    def bind(self, logical_id: str, ref: str, **attributes: str) -> None:
        """Record a created resource's ``Ref`` value and its ``Fn::GetAtt`` attributes."""
        self._refs[logical_id] = ref
        for name, value in attributes.items():
            self._attrs[(logical_id, name)] = value

    def bind_placeholder(self, logical_id: str) -> None:
        """A resource with no local counterpart: its Ref and attributes are stand-in strings."""
        self._placeholders.add(logical_id)
        self._refs[logical_id] = f"{self.stack_name}-{logical_id}"

    def functions(self) -> dict[str, FunctionSpec]:
        """Every ``AWS::Serverless::Function`` with Globals merged and its environment resolved."""
        glob = self.body.get("Globals", {}).get("Function", {})
        specs = {}
        for logical_id, res in self.resources("AWS::Serverless::Function").items():
            props = res.get("Properties", {})
            merged = {**glob, **props}
            env_vars = {
                **glob.get("Environment", {}).get("Variables", {}),
                **props.get("Environment", {}).get("Variables", {}),
            }
            environment = self.resolve(env_vars)
            code_uri = self.resolve(merged.get("CodeUri", "."))
            handler = str(self.resolve(merged.get("Handler", "")))
            module, _, func = handler.rpartition(".")
            if not module or not func:
                raise TemplateError(
                    f"function {logical_id}: Handler {handler!r} must be 'module.function'"
                )
            code_path = self.path.parent / str(code_uri) / (module.replace(".", "/") + ".py")
            specs[logical_id] = FunctionSpec(
                logical_id=logical_id,
                code_path=code_path,
                handler_name=func,
                timeout_seconds=int(self.resolve(merged.get("Timeout", 3))),
                memory_mb=int(self.resolve(merged.get("MemorySize", 128))),
                environment={k: _env_str(v) for k, v in environment.items()},
                events=props.get("Events", {}),
            )
        return specs

    # --- intrinsic functions ----------------------------------------------------------------

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            raise TemplateError(f"condition {name!r} is not defined in Conditions")
        return self._conditions[name]

    def resolve(self, value: Any) -> Any:
        """``value`` with every supported intrinsic function evaluated."""
        out = self._resolve(value)
        return None if out is _NO_VALUE else out

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            items = [self._resolve(v) for v in value]
            return [v for v in items if v is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Ref":
                return self._ref(arg)
            if key == "Condition":
                return self.condition(arg)
            if key.startswith("Fn::"):
                return self._function(key, arg)
        out = {}
        for k, v in value.items():
            resolved = self._resolve(v)
            if resolved is not _NO_VALUE:
                out[k] = resolved
        return out

    def _function(self, key: str, arg: Any) -> Any:
        if key == "Fn::GetAtt":
            parts = arg.split(".", 1) if isinstance(arg, str) else arg
            return self._getatt(str(parts[0]), str(self._resolve(parts[1])))
        if key == "Fn::Sub":
            return self._sub(arg)
        if key == "Fn::If":
            name, yes, no = arg
            return self._resolve(yes if self.condition(name) else no)
        if key == "Fn::Join":
            sep, items = arg
            return str(sep).join(str(v) for v in self._resolve(items))
        if key == "Fn::Select":
            index, items = self._resolve(arg)
            return items[int(index)]
        if key == "Fn::Split":
            sep, text = arg
            return str(self._resolve(text)).split(sep)
        if key == "Fn::FindInMap":
            name, top, second = (self._resolve(a) for a in arg[:3])
            try:
                return self.body["Mappings"][name][top][second]
            except KeyError:
                raise TemplateError(f"Fn::FindInMap {name}/{top}/{second} is not defined") from None
        if key in {"Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"}:
            return self._condition_value({key: arg})
        raise TemplateError(f"intrinsic function {key} is not supported by the local deployment")

    def _condition_value(self, expr: Any) -> bool:
        if isinstance(expr, dict) and len(expr) == 1:
            ((key, arg),) = expr.items()
            if key == "Fn::Equals":
                a, b = (self._resolve(x) for x in arg)
                return str(a) == str(b)
            if key == "Fn::Not":
                return not self._condition_value(arg[0])
            if key == "Fn::And":
                return all(self._condition_value(x) for x in arg)
            if key == "Fn::Or":
                return any(self._condition_value(x) for x in arg)
            if key == "Condition":
                if arg not in self._conditions:
                    body = self.body.get("Conditions", {})
                    if arg not in body:
                        raise TemplateError(f"condition {arg!r} is not defined in Conditions")
                    self._conditions[arg] = self._condition_value(body[arg])
                return self._conditions[arg]
        raise TemplateError(f"condition expression {expr!r} is not a condition function")

    def _ref(self, name: str) -> Any:
        pseudo = {
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT_ID,
            "AWS::StackName": self.stack_name,
            "AWS::StackId": (
                f"arn:aws:cloudformation:{REGION}:{ACCOUNT_ID}:stack/{self.stack_name}/local"
            ),
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        }
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in pseudo:
            return pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        if name in self._refs:
            return self._refs[name]
        if name in self.body.get("Resources", {}):
            raise TemplateError(f"Ref {name}: the resource has not been created locally")
        raise TemplateError(f"Ref {name}: not a parameter, pseudo parameter or resource")

    def _getatt(self, logical_id: str, attribute: str) -> str:
        if logical_id in self._placeholders:
            return f"{self.stack_name}-{logical_id}-{attribute}"
        try:
            return self._attrs[(logical_id, attribute)]
        except KeyError:
            raise TemplateError(
                f"Fn::GetAtt {logical_id}.{attribute}: not available in the local deployment"
            ) from None

    def _sub(self, arg: Any) -> str:
        if isinstance(arg, list):
            text, variables = arg[0], self._resolve(arg[1])
        else:
            text, variables = arg, {}

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(variables[name])
            if "." in name and not name.startswith("AWS::"):
                res, attr = name.split(".", 1)
                return self._getatt(res, attr)
            return str(self._ref(name))

        return _SUB_VAR.sub(replace, str(text))


def read_body(path: str | Path) -> dict[str, Any]:
    """The template as plain dicts and lists, intrinsic tags in their long ``Fn::`` form."""
    file = Path(path)
    if not file.is_file():
        raise TemplateError(f"template {str(file)!r} does not exist")
    try:
        decoded = cfn_yaml.load(str(file))
    except Exception as exc:  # cfn-lint raises its own match types
        raise TemplateError(f"template {str(file)!r} cannot be parsed: {exc}") from exc
    body: dict[str, Any] = json.loads(json.dumps(decoded))
    return body


def _env_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def resolve_parameters(declared: Mapping[str, Any], overrides: Mapping[str, str]) -> dict[str, str]:
    """Parameter values: defaults, then ``overrides``, each checked against its constraints."""
    unknown = sorted(set(overrides) - set(declared))
    if unknown:
        raise TemplateError(
            f"parameter override {unknown[0]!r} is not declared in the template's Parameters"
        )
    values: dict[str, str] = {}
    for name, spec in declared.items():
        if name in overrides:
            raw: Any = overrides[name]
        elif "Default" in spec:
            raw = spec["Default"]
        else:
            raise TemplateError(f"parameter {name!r} has no Default and no override was given")
        value = _env_str(raw)
        _check_parameter(name, value, spec)
        values[name] = value
    return values


def _check_parameter(name: str, value: str, spec: Mapping[str, Any]) -> None:
    allowed = spec.get("AllowedValues")
    if allowed is not None and value not in [_env_str(a) for a in allowed]:
        raise TemplateError(f"parameter {name}={value!r} must be one of {allowed}")
    if spec.get("Type") == "Number":
        try:
            number = float(value)
        except ValueError:
            raise TemplateError(f"parameter {name}={value!r} must be a number") from None
        if "MinValue" in spec and number < float(spec["MinValue"]):
            raise TemplateError(f"parameter {name}={value} must be >= {spec['MinValue']}")
        if "MaxValue" in spec and number > float(spec["MaxValue"]):
            raise TemplateError(f"parameter {name}={value} must be <= {spec['MaxValue']}")
    pattern = spec.get("AllowedPattern")
    if pattern is not None and re.fullmatch(str(pattern), value) is None:
        raise TemplateError(f"parameter {name}={value!r} must match {pattern!r}")
