"""``where`` on a stack: the URL's item, the rebuild's state, its file and the dead letters.

Every read is bounded and names its key: one ``GetItem`` of the URL's item, the publication, its
host's record and the checkpoint (one item each), the branch of the host's tree that covers the
URL (one Query read back from the URL's point, ``BranchStore.load_at``), the one file the URL
belongs in (at most
``MAX_READ_BACK_BYTES``, as the rebuild reads a file back), and the dead-letter messages
``status`` peeks (left visible). Nothing is scanned, consumed or written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sitemap_updater.ingest.dlq import (
    REASON_ATTRIBUTE,
    dead_letter_changes,
    named_url,
)
from sitemap_updater.page.order import key_time
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.lastmod import format_w3c, format_w3c_epoch
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.protocol.urlset import PublishedFormatError
from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.state.branches import Branch, BranchStore, leaves_of, listed_file
from sitemap_updater.rebuild.state.checkpoint import Checkpoint, CheckpointStore
from sitemap_updater.rebuild.state.hosts import HostRecord, HostStore
from sitemap_updater.rebuild.state.publication import Publication, PublicationStore
from sitemap_updater.sections import DEFAULT_MAX_SECTIONS_PER_HOST, SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, is_live, section_of_item, written_at_of
from sitemap_updater.store.keys import (
    ATTR_EVENT_KEY,
    ATTR_EXCLUDED,
    ATTR_STATE,
    ATTR_TTL,
    STATE_GONE,
    key_attributes,
    layout_key,
    url_hash,
    url_key,
)
from sitemap_updater.store.spaces import Layout, Placement, point_of
from sitemap_updater_local.commands.status import (
    StackUnusable,
    peek_dead_letters,
    queue_depth,
    stack_outputs,
    text_attributes,
)
from sitemap_updater_local.commands.where.placing import identity_of, listing, place
from sitemap_updater_local.commands.where.verdict import judge_stack
from sitemap_updater_local.errors import CommandError

#: the outputs ``where`` reads
NEEDED: Final = ("TableName", "StateTableName", "BucketName", "DeadLetterQueueUrl", "SiteUrl")
#: most dead letters naming the URL that are shown (the newest), besides their count
SHOWN_DEAD_LETTERS: Final = 5
#: the reason of a dead letter that carries none: SQS moved it after failed receives
NO_REASON: Final = "no reason: moved here after failed receives (redrive can send it back)"


def collect(clients: Callable[[str], Any], stack_name: str, url: str) -> dict[str, Any]:
    """What the stack ``stack_name`` knows of ``url``, as one JSON-ready object."""
    identity = identity_of(url)
    outputs = stack_outputs(clients("cloudformation"), stack_name, NEEDED)
    dynamodb = clients("dynamodb")
    state = outputs["StateTableName"]
    item = dynamodb.get_item(
        TableName=outputs["TableName"],
        Key=key_attributes(url_key(url_hash(identity))),
        ConsistentRead=True,
    ).get("Item")
    publication = PublicationStore(dynamodb, state).load().publication or Publication()
    checkpoint = CheckpointStore(dynamodb, state).load()
    layout = _layout(publication, clients, stack_name, outputs["SiteUrl"])
    key = layout_key(publication.layout)
    prefix = layout.prefix_of(identity)
    record = HostStore(dynamodb, state).load(key, [prefix]).get(prefix, HostRecord(prefix))
    named = section_of_item(item) if item else None
    space = Placement(layout, {prefix: list(record.sections)}).space_for(identity, named, take=True)
    branch = _branch(dynamodb, state, key, space, identity)
    leaves, held = leaves_of([] if branch is None else [branch])
    where = place(layout, identity, leaves, named, space=space)
    state_of = leaves.get(where.shard or "")
    published = state_of is not None and listed_file(state_of) is not None
    listed, lastmod = False, None
    if where.site is not None and published and where.file is not None:
        listed, lastmod = _listed(clients("s3"), outputs["BucketName"], where.file, identity)
    found: dict[str, Any] = {
        "url": url,
        "identity": identity,
        "stack": stack_name,
        "sites": [site.origin for site in layout.sites],
        **where.as_json(),
        "file_published": published,
        "listed": listed,
        "listed_in": where.file if listed else None,
        "lastmod": lastmod,
        "item": _item(item),
        "rebuild": {
            "layout_recorded": publication.layout is not None,
            "checkpoint_at": None if checkpoint is None else format_w3c_epoch(checkpoint.saved_at),
            "published_at": (
                None
                if publication.published_at is None
                else format_w3c_epoch(publication.published_at)
            ),
            "leaf_pending": where.shard in held,
            "written_after_checkpoint": _after(item, checkpoint),
        },
        "dead_letters": _dead_letters(clients("sqs"), outputs["DeadLetterQueueUrl"], identity),
    }
    return judge_stack(found)


def _layout(
    publication: Publication, clients: Callable[[str], Any], stack_name: str, site_url: str
) -> Layout:
    """The layout the published files were made for (the publication records it); before the
    first rebuild, the one the stack's ``SiteUrl``, ``SectionRules`` and ``MaxSectionsPerHost``
    give."""
    try:
        if publication.layout is not None:
            return Layout.recorded(publication.layout)
        parameters = _parameters(clients("cloudformation"), stack_name)
        rules = SectionRules.parse(parameters.get("SectionRules", ""))
        cap = int(parameters.get("MaxSectionsPerHost", DEFAULT_MAX_SECTIONS_PER_HOST))
        return Layout(Sites.parse(site_url), rules, max_sections=cap)
    except ValueError as error:
        raise StackUnusable(f"stack {stack_name!r}: its layout cannot be read: {error}") from error


def _branch(dynamodb: Any, state: str, key: str, space: str | None, identity: str) -> Branch | None:
    """The branch of the tree of ``space`` that covers ``identity`` (None: it has none)."""
    if space is None:
        return None
    prefix, point = point_of(space, url_hash(identity))
    return BranchStore(dynamodb, state).load_at(key, prefix, point)


def _parameters(cloudformation: Any, stack_name: str) -> dict[str, str]:
    (stack,) = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    return {p["ParameterKey"]: p.get("ParameterValue", "") for p in stack.get("Parameters", [])}


def _listed(s3: Any, bucket: str, key: str, identity: str) -> tuple[bool, str | None]:
    try:
        body = Publisher(s3, bucket).get(key)
        return (False, None) if body is None else listing(body, identity)
    except PublishedFormatError as error:
        raise CommandError(f"s3://{bucket}/{key} cannot be read: {error}") from error


def _item(item: Item | None) -> dict[str, Any] | None:
    """The URL's item as ``where`` reports it (``None``: the table has none)."""
    if item is None:
        return None
    written = written_at_of(item)
    event = item.get(ATTR_EVENT_KEY)
    ttl = item.get(ATTR_TTL)
    excluded = item.get(ATTR_EXCLUDED, {}).get("N")
    gone = item.get(ATTR_STATE, {}).get("S") == STATE_GONE
    return {
        "state": "deleted" if gone else "live" if is_live(item) else "excluded",
        "change_at": None if event is None else format_w3c(key_time(str(event["S"]))),
        "written_at": None if written is None else format_w3c_epoch(written / 1000),
        "tombstone_until": None if ttl is None else format_w3c_epoch(int(ttl["N"])),
        "excluded_since": None if excluded is None else format_w3c_epoch(int(excluded)),
    }


def _after(item: Item | None, checkpoint: Checkpoint | None) -> bool | None:
    """Whether ingest wrote the item after the rebuild's last checkpoint (so no run has read
    it yet); ``None`` when unknown (no item, or one without its write time)."""
    written = None if item is None else written_at_of(item)
    if written is None:
        return None
    return checkpoint is None or written > checkpoint.saved_at * 1000


def _dead_letters(sqs: Any, queue_url: str, identity: str) -> dict[str, Any]:
    """The dead letters among those peeked whose change names ``identity`` once normalized:
    how many, and the newest few with their reason."""
    peeked = 0
    newest: list[dict[str, Any]] = []
    counts = {"rejected": 0, "failed": 0}
    for message in peek_dead_letters(sqs, queue_url):
        peeked += 1
        reason = text_attributes(message).get(REASON_ATTRIBUTE)
        sent = format_w3c_epoch(int(message.get("Attributes", {}).get("SentTimestamp", 0)) / 1000)
        for change, why in dead_letter_changes(message.get("Body", ""), reason or NO_REASON):
            if _names(change, identity):
                counts["rejected" if reason is not None else "failed"] += 1
                newest.append({"sent_at": sent, "rejected": reason is not None, "reason": why})
        newest = sorted(newest, key=lambda d: str(d["sent_at"]), reverse=True)
        del newest[SHOWN_DEAD_LETTERS:]
    return {"messages": queue_depth(sqs, queue_url), "peeked": peeked, **counts, "newest": newest}


def _names(change: object, identity: str) -> bool:
    url = named_url(change)
    if url is None:
        return False
    try:
        return normalize_url(url) == identity
    except SitemapError:
        return False
