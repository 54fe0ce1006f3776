"""Each host's items: its record (its indexes, the hashes of the files beside them, its
empty-site file, the sections its changes named) and its news files.

A host's files are listed by one index, ``sitemap.xml``, until it would list more than the
protocol allows (50,000 files or 52,428,800 bytes); then the index is cut in two at a branch
(``state.branches``), and the second part is listed by the host's next index,
``sitemap-2.xml``, ``sitemap-3.xml``, ... Each index lists the files of the branches whose sort
key is at least its ``start`` and below the next index's, so a change reads and renders only the
index it falls in. An index is never merged back: like the trees, the indexes only grow.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitemap_updater.store.keys import (
    BATCH_GET_LIMIT,
    EMPTY_SITE_KEY,
    HOST_SK_PREFIX,
    HOSTS_PK_PREFIX,
    NEWS_PK_PREFIX,
    host_key,
    key_attributes,
)
from sitemap_updater.store.spaces import index_file_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class IndexPart:
    """One index of a host: number 1 is ``sitemap.xml``, number n ``sitemap-<n>.xml``. It lists
    the files of the branches from ``start`` (a branch's sort key; ``""``: the first) on,
    ``files`` entries holding ``urls`` URLs (its leaves' files'), and was last put with
    ``sha256``."""

    number: int
    start: str = ""
    sha256: str | None = None
    files: int = 0
    urls: int = 0
    #: whether it lists the host's empty-site file (it has no file of its own to list)
    home: bool = False


@dataclass(frozen=True, slots=True)
class HostRecord:
    """One host's record; ``indexes`` are sorted by ``start`` (the first starts at ``""``)."""

    prefix: str
    indexes: tuple[IndexPart, ...] = (IndexPart(1),)
    #: (key, sha256) of the files put beside the indexes: the stylesheet and the view
    beside: tuple[tuple[str, str], ...] = ()
    #: (sha256, index lastmod) of the empty-site file, while an index lists it
    home: tuple[str, str | None] | None = None
    #: the sections changes named on the host, in the order it took them (``Placement``)
    sections: tuple[str, ...] = ()

    def part_of(self, sort_key: str) -> IndexPart:
        """The index that lists the branch with ``sort_key`` (or the point it falls on)."""
        starts = [part.start for part in self.indexes]
        return self.indexes[bisect_right(starts, sort_key) - 1]

    def bounds(self, number: int) -> tuple[str, str | None]:
        """The sort keys an index lists: from its start to the next index's (None: no end)."""
        for position, part in enumerate(self.indexes):
            if part.number == number:
                following = self.indexes[position + 1 :]
                return part.start, following[0].start if following else None
        raise KeyError(number)

    def beside_sha256(self, key: str) -> str | None:
        return dict(self.beside).get(key)

    def index_keys(self) -> list[str]:
        """The keys of the host's indexes, by number."""
        numbers = sorted(part.number for part in self.indexes)
        return [index_file_key(self.prefix, number) for number in numbers]

    def listed_keys(self) -> set[str]:
        """Every key the record lists: the indexes, the files beside them, the empty-site file
        while an index lists it."""
        keys = {*self.index_keys(), *(key for key, _ in self.beside)}
        if self.home is not None:
            keys.add(self.prefix + EMPTY_SITE_KEY)
        return keys


@dataclass(frozen=True, slots=True)
class NewsFiles:
    """The news files a host's first index lists: (key, sha256, index lastmod, URL count)."""

    prefix: str
    files: tuple[tuple[str, str, str | None, int], ...] = ()


def _opt(value: str | None) -> dict[str, Any]:
    return {"NULL": True} if value is None else {"S": value}


def _text(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None or "NULL" in value else str(value["S"])


def record_item(layout: str, record: HostRecord) -> dict[str, Any]:
    """The state table item of a host's ``record`` in the layout named ``layout``."""
    item: dict[str, Any] = {
        **key_attributes(host_key(HOSTS_PK_PREFIX, layout, record.prefix)),
        "indexes": {
            "L": [
                {
                    "M": {
                        "number": {"N": str(part.number)},
                        "start": {"S": part.start},
                        "sha256": _opt(part.sha256),
                        "files": {"N": str(part.files)},
                        "urls": {"N": str(part.urls)},
                        "home": {"BOOL": part.home},
                    }
                }
                for part in record.indexes
            ]
        },
        "beside": {"M": {key: {"S": sha} for key, sha in record.beside}},
        "sections": {"L": [{"S": name} for name in record.sections]},
    }
    if record.home is not None:
        item["home"] = {"M": {"sha256": {"S": record.home[0]}, "lastmod": _opt(record.home[1])}}
    return item


def _record_of(item: Mapping[str, Any]) -> HostRecord:
    parts = []
    for value in item["indexes"]["L"]:
        part = value["M"]
        parts.append(
            IndexPart(
                number=int(part["number"]["N"]),
                start=str(part["start"]["S"]),
                sha256=_text(part["sha256"]),
                files=int(part["files"]["N"]),
                urls=int(part["urls"]["N"]),
                home=bool(part["home"]["BOOL"]),
            )
        )
    home = item.get("home", {}).get("M")
    return HostRecord(
        prefix=str(item["sk"]["S"])[len(HOST_SK_PREFIX) :],
        indexes=tuple(sorted(parts, key=lambda part: part.start)),
        beside=tuple(sorted((k, str(v["S"])) for k, v in item["beside"]["M"].items())),
        home=None if home is None else (str(home["sha256"]["S"]), _text(home["lastmod"])),
        sections=tuple(str(v["S"]) for v in item["sections"]["L"]),
    )


def _news_item(layout: str, news: NewsFiles) -> dict[str, Any]:
    return {
        **key_attributes(host_key(NEWS_PK_PREFIX, layout, news.prefix)),
        "files": {
            "L": [
                {
                    "M": {
                        "key": {"S": key},
                        "sha256": {"S": sha},
                        "lastmod": _opt(lastmod),
                        "urls": {"N": str(count)},
                    }
                }
                for key, sha, lastmod, count in news.files
            ]
        },
    }


def _news_of(item: Mapping[str, Any]) -> NewsFiles:
    files = []
    for value in item["files"]["L"]:
        entry = value["M"]
        files.append(
            (
                str(entry["key"]["S"]),
                str(entry["sha256"]["S"]),
                _text(entry["lastmod"]),
                int(entry["urls"]["N"]),
            )
        )
    return NewsFiles(str(item["sk"]["S"])[len(HOST_SK_PREFIX) :], tuple(files))


class HostStore:
    """Reads and writes the host records and the news files of one state table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        #: items read (each counts in the run's report)
        self.items_read = 0

    def _query(self, partition: str) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition}},
            "ConsistentRead": True,
        }
        items: list[dict[str, Any]] = []
        while True:
            page = self._client.query(**kwargs)
            items += page.get("Items", [])
            last = page.get("LastEvaluatedKey")
            if not last:
                self.items_read += len(items)
                return items
            kwargs["ExclusiveStartKey"] = last

    def load(self, layout: str, prefixes: Iterable[str]) -> dict[str, HostRecord]:
        """The records of the hosts under ``prefixes`` that have one (BatchGetItem)."""
        wanted = list(dict.fromkeys(prefixes))
        records: dict[str, HostRecord] = {}
        for start in range(0, len(wanted), BATCH_GET_LIMIT):
            keys = [
                key_attributes(host_key(HOSTS_PK_PREFIX, layout, prefix))
                for prefix in wanted[start : start + BATCH_GET_LIMIT]
            ]
            request: dict[str, Any] = {self._table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                response = self._client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self._table, []):
                    self.items_read += 1
                    record = _record_of(item)
                    records[record.prefix] = record
                request = dict(response.get("UnprocessedKeys") or {})
        return records

    def load_all(self, layout: str) -> dict[str, HostRecord]:
        """Every host record of the layout named ``layout``."""
        records = (_record_of(item) for item in self._query(HOSTS_PK_PREFIX + layout))
        return {record.prefix: record for record in records}

    def save(self, layout: str, record: HostRecord) -> None:
        self._client.put_item(TableName=self._table, Item=record_item(layout, record))

    def load_news(self, layout: str) -> dict[str, NewsFiles]:
        """The news files of every host that has some."""
        news = (_news_of(item) for item in self._query(NEWS_PK_PREFIX + layout))
        return {files.prefix: files for files in news}

    def save_news(self, layout: str, news: NewsFiles) -> None:
        """Store a host's news files (an empty list removes the item)."""
        if news.files:
            self._client.put_item(TableName=self._table, Item=_news_item(layout, news))
        else:
            key = key_attributes(host_key(NEWS_PK_PREFIX, layout, news.prefix))
            self._client.delete_item(TableName=self._table, Key=key)

    def delete(self, layout: str, prefix: str) -> None:
        key = key_attributes(host_key(HOSTS_PK_PREFIX, layout, prefix))
        self._client.delete_item(TableName=self._table, Key=key)
