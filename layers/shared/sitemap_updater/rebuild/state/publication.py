"""The ``meta/published`` item: the publication as a whole, in a few fixed fields. What each
index lists lives in the host records and branches (``hosts``, ``branches``); this item says
which layout they are for and how far the last run got.

``in_flight`` is set (to the run's owner) before a run's first S3 write and removed when that
run saves this item, after its branches and host records. A run that finds it set knows the
previous run died between the two: the bucket may hold bytes no state describes, so it rewrites
every file it rebuilds and every index instead of trusting the recorded hashes.

``generation`` is raised by one in the same write that sets ``in_flight``, so every run that
writes objects publishes under a generation no earlier run used; the CloudFront caller reference
is derived from it (see ``invalidate``). The same write drops ``sent``, the invalidation a run
notes just before sending it: a ``sent`` found at load time was noted after the last object
write of any run, so the bucket still holds the bytes it was about.

The save is conditional on the generation the run holds, so a run whose lease expired under it
(another run took over and wrote) fails instead of saving over the other's state.

An item without ``format`` was written by 0.1.0, whose ``meta/shardmap`` and this item held every
space's tree and every listed file: ``load`` reports it, and the run converts it first
(``rebuild.steps.upgrade``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from sitemap_updater.rebuild.freshness import Freshness
from sitemap_updater.store.keys import PUBLISHED_SK, key_attributes, meta_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

#: the ``format`` of the items this version writes (0.1.0's have none)
STATE_FORMAT: Final = 2


class PublicationConflictError(RuntimeError):
    """Another run wrote the publication since this run read it (its lease had expired)."""


@dataclass(frozen=True, slots=True)
class SentBatch:
    """An invalidation a run was about to send: its reference and ``changes_digest``
    (``rebuild.outputs.invalidate``)."""

    reference: str
    changes: str


@dataclass(frozen=True, slots=True)
class Publication:
    """What the last run published, as a whole."""

    #: the ``Layout.text`` the trees are for (None before the first publish)
    layout: str | None = None
    #: while a move to another layout is under way: the key of the layout it leaves
    #: (``store.keys.layout_key``), whose files stay listed until the move is done
    moving_from: str | None = None
    #: what every index's bytes depend on besides what it lists (the public base URL, the
    #: stylesheet): where it changed, a run renders every index
    indexes_for: str | None = None
    #: entries the indexes list, and the URLs those files hold
    files: int = 0
    urls: int = 0
    robots_sha256: str | None = None
    #: owner of a run that started writing objects and has not saved this item (it crashed)
    in_flight: str | None = None
    #: number of runs that have started writing objects
    generation: int = 0
    #: the invalidation of a run that crashed after noting it (and maybe sending it)
    sent: SentBatch | None = None
    #: when a run last wrote objects (epoch seconds), and the lag of the changes it published
    published_at: int | None = None
    freshness: Freshness | None = None
    #: 0.1.0's ``meta/shardmap`` may still be in the table (a run converted its state and
    #: may have died before deleting it): the next run deletes it and saves this as False
    legacy_map: bool = False


@dataclass(frozen=True, slots=True)
class Loaded:
    """What ``load`` found: the publication, or the item 0.1.0 wrote (``legacy``)."""

    publication: Publication | None
    legacy: dict[str, Any] | None = None


class PublicationStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        self._key = key_attributes(meta_key(PUBLISHED_SK))

    def load(self) -> Loaded:
        """The publication (None before the first one), or 0.1.0's item as it is."""
        item = self._client.get_item(TableName=self._table, Key=self._key, ConsistentRead=True).get(
            "Item"
        )
        if not item:
            return Loaded(None)
        if "format" not in item:
            return Loaded(None, legacy=item)
        return Loaded(publication_of(item))

    def begin(self, owner: str) -> int:
        """Record that ``owner`` is about to write objects (``save`` removes the mark), drop any
        noted invalidation and raise the generation; returns the run's generation."""
        response = self._client.update_item(
            TableName=self._table,
            Key=self._key,
            UpdateExpression=(
                "SET in_flight = :owner, #format = :format ADD generation :one"
                " REMOVE sent_reference, sent_changes"
            ),
            ExpressionAttributeNames={"#format": "format"},
            ExpressionAttributeValues={
                ":owner": {"S": owner},
                ":one": {"N": "1"},
                ":format": {"N": str(STATE_FORMAT)},
            },
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["generation"]["N"])

    def note_sent(self, batch: SentBatch) -> None:
        """Record the invalidation the run is about to send (before it is sent)."""
        self._client.update_item(
            TableName=self._table,
            Key=self._key,
            UpdateExpression="SET sent_reference = :reference, sent_changes = :changes",
            ExpressionAttributeValues={
                ":reference": {"S": batch.reference},
                ":changes": {"S": batch.changes},
            },
        )

    def replace_legacy(self, publication: Publication) -> None:
        """Put ``publication`` over the item 0.1.0 wrote, unless another run did already."""
        self._put(publication, "attribute_not_exists(#format)", {}, {"#format": "format"})

    def save(self, publication: Publication, *, held: int | None) -> None:
        """Replace the item with ``publication`` (which removes the ``in_flight`` mark and the
        noted invalidation unless it carries them), if its generation is still ``held`` (the
        one the run read or took; None: there was no item)."""
        condition = "attribute_not_exists(pk)" if held is None else "generation = :held"
        values = {} if held is None else {":held": {"N": str(held)}}
        self._put(publication, condition, values, {})

    def _put(
        self,
        publication: Publication,
        condition: str,
        values: dict[str, Any],
        names: dict[str, str],
    ) -> None:
        extra: dict[str, Any] = {}
        if values:
            extra["ExpressionAttributeValues"] = values
        if names:
            extra["ExpressionAttributeNames"] = names
        try:
            self._client.put_item(
                TableName=self._table,
                Item=item_of(publication),
                ConditionExpression=condition,
                **extra,
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise PublicationConflictError(
                    "the publication was replaced by another run since this run read it"
                ) from error
            raise


def item_of(publication: Publication) -> dict[str, Any]:
    """The ``meta/published`` item of ``publication``."""
    item: dict[str, Any] = {
        **key_attributes(meta_key(PUBLISHED_SK)),
        "format": {"N": str(STATE_FORMAT)},
        "generation": {"N": str(publication.generation)},
        "files": {"N": str(publication.files)},
        "urls": {"N": str(publication.urls)},
    }
    for name in ("layout", "moving_from", "indexes_for", "robots_sha256", "in_flight"):
        value = getattr(publication, name)
        if value is not None:
            item[name] = {"S": value}
    if publication.published_at is not None:
        item["published_at"] = {"N": str(publication.published_at)}
    if publication.freshness is not None:
        item["freshness"] = freshness_item(publication.freshness)
    if publication.sent is not None:
        item["sent_reference"] = {"S": publication.sent.reference}
        item["sent_changes"] = {"S": publication.sent.changes}
    if publication.legacy_map:
        item["legacy_map"] = {"BOOL": True}
    return item


def publication_of(item: dict[str, Any]) -> Publication:
    def text(name: str) -> str | None:
        value = item.get(name)
        return str(value["S"]) if value else None

    def number(name: str) -> int | None:
        value = item.get(name)
        return int(value["N"]) if value else None

    reference, changes = text("sent_reference"), text("sent_changes")
    return Publication(
        layout=text("layout"),
        moving_from=text("moving_from"),
        indexes_for=text("indexes_for"),
        files=number("files") or 0,
        urls=number("urls") or 0,
        robots_sha256=text("robots_sha256"),
        in_flight=text("in_flight"),
        generation=number("generation") or 0,
        sent=SentBatch(reference, changes) if reference and changes else None,
        published_at=number("published_at"),
        freshness=freshness_of(item.get("freshness")),
        legacy_map="legacy_map" in item,
    )


def freshness_item(freshness: Freshness) -> dict[str, Any]:
    return {
        "M": {
            "changes": {"N": str(freshness.changes)},
            "max_seconds": {"N": str(freshness.max_seconds)},
            "median_seconds": {"N": str(freshness.median_seconds)},
        }
    }


def freshness_of(value: Any) -> Freshness | None:
    if value is None:
        return None
    fields = value["M"]
    return Freshness(
        changes=int(fields["changes"]["N"]),
        max_seconds=float(fields["max_seconds"]["N"]),
        median_seconds=float(fields["median_seconds"]["N"]),
    )
