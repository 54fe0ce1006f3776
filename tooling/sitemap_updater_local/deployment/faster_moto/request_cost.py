"""Cheaper requests from the local deployment's clients to moto, with the same answers.

Every request of the local deployment goes through botocore to moto's stub in this process, so a
fixed cost per request is paid by every message the flow drains. Two parts:

Clients (:func:`local_session`)
  The deployment's boto3 sessions, the default one the functions create their clients from and
  the harness's own, give every client a default config with a fixed ``user_agent`` (botocore
  builds its User-Agent header twice per request otherwise; nothing reads it but moto, for a
  region when the host name has none); a config the code passes itself (the rebuild's retries) is
  merged over it, as botocore merges a session's default config. Requests to DynamoDB,
  DynamoDB Streams and SQS are not signed (botocore's ``choose-signer`` event answers
  ``UNSIGNED``): moto reads only the account and the region from a signature, the account
  from an access key of 20 capitals or digits, which the fake ``testing`` key is not (moto's
  default account either way), and the region from the endpoint's host name first. S3 requests
  stay signed: moto's S3 answers an unsigned request as an anonymous one.

moto (installed with :mod:`.linear_moto`, compared with moto's answers in
``tests/integration/local/test_request_cost.py``), in moto 5.2:
  * ``BaseResponse.call_action`` (``moto/core/responses.py``) lists the methods of the response
    class with ``inspect.getmembers`` on every request (``moto/core/utils.py``,
    ``method_names_from_class``). Here the list is kept per class, as a set: the classes'
    methods do not change while moto runs.
  * ``ConditionExpressionParser.parse`` (``moto/dynamodb/comparisons.py``) lexes and parses a
    condition expression twice per conditional write (``DynamoHandler.put_item`` validates it,
    ``Table.put_item`` evaluates it). The syntax tree depends on the expression and its
    attribute names only; the values are leaves placed by name. Here the tree of an expression
    parsed before, with the same names, is reused with this request's values put in its
    leaves, and turned into moto's condition objects by moto's own ``_make_op_condition``; an
    expression not parsed before, or a request lacking one of the values, is parsed by moto.
  * ``ResponseSerializer.get_value`` (``moto/core/serialize.py``) finds every member of an
    answer through ``XFormedAttributePicker``, which builds a context and six alias providers
    for each member to list the keys it tries. For a plain ``dict`` (not a model object) those
    keys depend on the member's shape and name only (the providers that look at the object ask
    for a ``Meta`` a dict lacks, or compare with the class name ``dict``). Here they are listed
    once per shape and member and tried in the same order; an object that is not a plain dict,
    or a response class with value transformers, is left to moto's picker.
  * ``Item.__init__`` (``moto/dynamodb/models/dynamo_type.py``) puts each attribute into a
    ``LimitedSizeDict``, whose ``__setitem__`` sums the size of every attribute already in to
    check the 400 KB limit (405,000 bytes in moto): quadratic in the attributes. Here the same
    sum is kept as the attributes go in, and the same ``ItemSizeTooLarge`` is raised at the
    same attribute.
  * ``MotoRandom.get_random_string`` (``moto/moto_api/_internal/moto_random.py``, 52 characters
    for every request id) and ``generate_receipt_handle`` (``moto/sqs/utils.py``, 185 letters
    per message received) call ``random.choice`` once per character. Here each character is
    drawn as ``random.choice`` draws it (``getrandbits`` of the pool's bit length, again while
    out of range) without the calls around it, so a seeded moto gives the very same strings.
"""

from __future__ import annotations

import string
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final

import boto3
import botocore.session
import moto.core.responses as moto_responses
import moto.sqs.models as sqs_models
from botocore import UNSIGNED
from botocore.config import Config
from moto.core.serialize import (
    DEFAULT_ALIAS_PROVIDERS,
    AttributePickerContext,
    ResponseSerializer,
    XFormedAttributePicker,
)
from moto.core.utils import method_names_from_class
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize
from moto.moto_api._internal import mock_random
from moto.moto_api._internal.moto_random import MotoRandom

CLIENT_CONFIG: Final = Config(user_agent="sitemap-updater-local")
#: botocore service ids (hyphenated) whose requests go unsigned; see the module docstring
UNSIGNED_SERVICES: Final = ("dynamodb", "dynamodb-streams", "sqs")


def _unsigned(**_: Any) -> object:
    return UNSIGNED


def local_session(region: str) -> boto3.Session:
    """A boto3 session whose clients use :data:`CLIENT_CONFIG` unless told otherwise, and do
    not sign requests to :data:`UNSIGNED_SERVICES`."""
    core = botocore.session.get_session()
    core.set_default_client_config(CLIENT_CONFIG)
    handler: Any = _unsigned  # botocore's stubs type handlers as returning None
    for service in UNSIGNED_SERVICES:
        core.register(f"choose-signer.{service}", handler)
    return boto3.Session(botocore_session=core, region_name=region)


# --- method names -------------------------------------------------------------------------------

_methods: dict[type, frozenset[str]] = {}


def _method_names(clazz: type) -> frozenset[str]:
    names = _methods.get(clazz)
    if names is None:
        names = _methods[clazz] = frozenset(method_names_from_class(clazz))
    return names


# --- condition expressions ----------------------------------------------------------------------

Node = Any  # ConditionExpressionParser.Node, a named tuple
_Node: Final = ConditionExpressionParser.Node
_VALUE_KIND: Final = ConditionExpressionParser.Kind.EXPRESSION_ATTRIBUTE_VALUE
_lock = threading.Lock()
#: (expression, attribute names) -> (syntax tree, names found, values found)
_trees: dict[tuple[str, tuple[Any, ...]], tuple[Node, list[str], list[str]]] = {}
_MAX_TREES: Final = 1024


def _with_values(node: Node, values: dict[str, Any]) -> Node:
    """``node`` with every expression attribute value in it read from ``values``."""
    nonterminal, kind, text, value, children = node
    if kind == _VALUE_KIND:
        return _Node(nonterminal, kind, text, values[text], children)
    if not children:
        return node
    return _Node(nonterminal, kind, text, value, [_with_values(c, values) for c in children])


def _tree_key(parser: ConditionExpressionParser) -> tuple[str, tuple[Any, ...]] | None:
    names = parser.expression_attribute_names
    key = (parser.condition_expression or "", tuple(sorted(names.items())) if names else ())
    try:
        hash(key)
    except TypeError:  # a name mapped to something unhashable: left to moto
        return None
    return key


def _has_all(values: object, names: list[str]) -> bool:
    return not names or (isinstance(values, dict) and all(name in values for name in names))


def _parse(original: Callable[[ConditionExpressionParser], Any]) -> Callable[..., Any]:
    def parse(self: ConditionExpressionParser) -> Any:
        key = _tree_key(self) if self.condition_expression else None
        if key is None:
            return original(self)
        known = _trees.get(key)
        values = self.expression_attribute_values
        if known is not None and _has_all(values, known[2]):
            tree, names_found, values_found = known
            self.expr_attr_names_found.extend(names_found)
            self.expr_attr_values_found.extend(values_found)
            return self._make_op_condition(_with_values(tree, values or {}))
        roots: list[Node] = []
        make = self._make_op_condition

        def first_root(node: Node) -> Any:
            if not roots:
                roots.append(node)
            return make(node)

        self._make_op_condition = first_root  # type: ignore[method-assign]
        try:
            op = original(self)
        finally:
            del self._make_op_condition
        if roots:
            with _lock:
                if len(_trees) >= _MAX_TREES:
                    _trees.clear()
                _trees[key] = (
                    roots[0],
                    list(self.expr_attr_names_found),
                    list(self.expr_attr_values_found),
                )
        return op

    return parse


# --- answer members ------------------------------------------------------------------------------

#: (member shape, its parent shape, member name) -> the keys moto's picker tries in a plain dict
_keys_tried: dict[tuple[Any, Any, str], tuple[str, ...]] = {}
_MAX_KEYS: Final = 8192


def _plain_dict_picker(picker: object) -> bool:
    return (
        type(picker) is XFormedAttributePicker
        and picker.alias_providers is DEFAULT_ALIAS_PROVIDERS
        and not picker.response_transformers
    )


def _get_value(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_value(self: ResponseSerializer, value: Any, key: str, shape: Any) -> Any:
        picker = self._value_picker
        if type(value) is not dict or not _plain_dict_picker(picker):
            return original(self, value, key, shape)
        found = (shape, getattr(shape, "parent", None), key)
        keys = _keys_tried.get(found)
        if keys is None:
            context = AttributePickerContext(obj=value, key=key, shape=shape)
            keys = tuple(picker.get_possible_keys(context))
            if any("." in k for k in keys):  # a path: moto walks it
                return original(self, value, key, shape)
            if len(_keys_tried) >= _MAX_KEYS:
                _keys_tried.clear()
            _keys_tried[found] = keys
        for k in keys:
            if k in value:
                return value[k]
        return None

    return get_value


# --- items ---------------------------------------------------------------------------------------

#: moto's item size limit (``LimitedSizeDict.__setitem__``)
_ITEM_SIZE_LIMIT: Final = 405_000


def _item_init(self: Item, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = LimitedSizeDict()
    total = 0
    for key, value in attrs.items():
        typed = DynamoType(value)
        size = bytesize(key) + typed.size()
        if total + size > _ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(self.attrs, key, typed)
        total += size


# --- random strings -----------------------------------------------------------------------------


def _drawn(rng: MotoRandom, pool: Sequence[str], length: int) -> str:
    """``length`` characters of ``pool``, drawn as ``length`` calls of ``rng.choice`` draw them."""
    bits = rng.getrandbits
    size = len(pool)
    width = size.bit_length()
    out = []
    for _ in range(length):
        index = bits(width)
        while index >= size:
            index = bits(width)
        out.append(pool[index])
    return "".join(out)


def _random_string(
    self: MotoRandom, length: int = 20, include_digits: bool = True, lower_case: bool = False
) -> str:
    pool = string.ascii_letters + (string.digits if include_digits else "")
    drawn = _drawn(self, pool, length)
    return drawn.lower() if lower_case else drawn


def _receipt_handle() -> str:
    return _drawn(mock_random, string.ascii_lowercase, 185)


# --- installation -------------------------------------------------------------------------------


def replacements() -> list[tuple[object, str, Any]]:
    """(owner, attribute, replacement) of every change this module makes to moto."""
    _methods.clear()
    _trees.clear()
    _keys_tried.clear()
    parser = ConditionExpressionParser.__dict__
    return [
        (moto_responses, "method_names_from_class", _method_names),
        (ConditionExpressionParser, "parse", _parse(parser["parse"])),
        (ResponseSerializer, "get_value", _get_value(ResponseSerializer.__dict__["get_value"])),
        (Item, "__init__", _item_init),
        (MotoRandom, "get_random_string", _random_string),
        (sqs_models, "generate_receipt_handle", _receipt_handle),
    ]
