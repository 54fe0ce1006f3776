"""A build's files in its output directory, replaced all at once, and the manifest of them.

The new files are written into a staging directory made inside the output directory
(``mkdtemp``: a unique name, mode 0700, so nothing can be planted in it), while the output
directory stays as it was. Only when every file is there does :meth:`StagedDirectory.commit`
move them in:

1. a commit record (the new files and the previous build's) is written into the staging
   directory and flushed to disk;
2. each new file is moved over its name with ``os.replace`` (one step; a symlink planted at the
   name is replaced, never followed), the index last, so the index never names a missing file;
3. the manifest ``.sitemap-build-manifest.json`` is replaced: the files this build wrote;
4. the previous build's files that the new one does not list are removed: only those its own
   manifest named, never anything else in the directory.

A name may lie in a host's subdirectory (``www.example.de/sitemap.xml``: a host other than the
primary, as in the bucket). That subdirectory is made when missing and is only ever used as a
real directory: a symlink or a file at its name is refused, never followed (every move and
removal in it goes through a descriptor opened with ``O_NOFOLLOW``). A subdirectory that the
removals leave empty is removed.

SIGINT and SIGTERM are held during the commit, so Ctrl-C lands before it (nothing changed) or
after it (the new output complete). Should the process die in the middle of a commit, the next
build finds the commit record and finishes it first; a staging directory without one is a build
that never got to commit, and is removed. A lock on the output directory itself (``flock``)
keeps two builds out of one directory.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Final, Self

from sitemap_updater.sections import MAX_SECTION_LEN, SECTION_CHARS
from sitemap_updater_local.errors import CommandError

MANIFEST: Final = ".sitemap-build-manifest.json"
STAGING_PREFIX: Final = ".sitemap-build-"
STAGING_SUFFIX: Final = ".staging"
COMMIT_RECORD: Final = "commit.json"
#: A host's subdirectory (a host name or a bracketed IPv6 address; never ``.`` or ``..``).
_HOST_DIR: Final = r"(?:[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])/"
#: Names a build may write, so the only ones a manifest can make it replace or remove: a host's
#: index, its stylesheet, its view (``sitemap.html``, ``.js``, ``.css``), its empty-site file and
#: its section files (``sitemap-pages-r01.xml.gz``), its News files (``sitemap-news-1.xml.gz``),
#: or a file of a build from before sections (``sitemap-r01.xml.gz``), each at the top or in the
#: host's subdirectory.
OWN_FILE: Final = re.compile(
    rf"^(?:{_HOST_DIR})?sitemap"
    rf"(?:-(?:r[01]*|home|news-[1-9][0-9]*|{SECTION_CHARS}{{1,{MAX_SECTION_LEN}}}-r[01]*)\.xml\.gz"
    r"|\.xml|\.xsl|\.html|\.js|\.css)\Z"
)
_HELD: Final = {signal.SIGINT, signal.SIGTERM}


def write_new(directory: str, name: str, body: bytes) -> None:
    """Create ``directory/name`` (which must not exist yet) holding ``body``, on disk; a name
    in a subdirectory (``host/name``, in a staging directory of the build's own) makes it."""
    path = os.path.join(directory, name)
    if "/" in name:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(body)
        fh.flush()
        os.fsync(fh.fileno())


def own_files(names: object) -> list[str]:
    """The names of a manifest's list a build may touch (anything else in it is ignored)."""
    if not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str) and OWN_FILE.match(n)]


def read_manifest(out_dir: str) -> list[str]:
    """The files the previous build in ``out_dir`` wrote (none if it left no readable manifest)."""
    try:
        with open(os.path.join(out_dir, MANIFEST), "rb") as fh:
            recorded = json.loads(fh.read(1 << 20))
    except (OSError, ValueError):
        return []
    return own_files(recorded.get("files") if isinstance(recorded, dict) else None)


def _write_json(path: str, value: object) -> None:
    directory, name = os.path.split(path)
    write_new(directory, name, json.dumps(value, indent=1).encode() + b"\n")


@contextmanager
def _signals_held() -> Iterator[None]:
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _sync_directory(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_host_dir(out_dir: str, host: str, *, make: bool) -> int:
    """A descriptor of the real directory ``out_dir/host`` (made first if ``make``); raises
    ``OSError`` when it is missing, a symlink or not a directory."""
    if make:
        with suppress(FileExistsError):
            os.mkdir(os.path.join(out_dir, host), 0o755)
    return os.open(os.path.join(out_dir, host), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)


def _split_name(name: str) -> tuple[str, str]:
    """(host subdirectory or ``""``, file name) of an own file's name."""
    host, _, base = name.rpartition("/")
    return host, base


def _move_in(out_dir: str, staging: str, files: list[str]) -> None:
    """Step 2: move each staged file over its name, in order; then sync the directories."""
    opened: dict[str, int] = {}
    try:
        for name in files:
            source = os.path.join(staging, name)
            if not os.path.lexists(source):
                continue
            host, base = _split_name(name)
            if not host:
                os.replace(source, os.path.join(out_dir, name))
                continue
            if host not in opened:
                opened[host] = _open_host_dir(out_dir, host, make=True)
            os.replace(source, base, dst_dir_fd=opened[host])
        for fd in opened.values():
            os.fsync(fd)
    finally:
        for fd in opened.values():
            os.close(fd)


def _remove_old(out_dir: str, names: list[str]) -> list[str]:
    """Step 4: remove the named files of the previous build (in a host's subdirectory only if
    it is a real directory); then the subdirectories left empty. Returns the names removed."""
    removed = []
    hosts = set()
    for name in names:
        host, base = _split_name(name)
        try:
            if not host:
                os.remove(os.path.join(out_dir, name))
            else:
                fd = _open_host_dir(out_dir, host, make=False)
                hosts.add(host)
                try:
                    os.remove(base, dir_fd=fd)
                finally:
                    os.close(fd)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symlink at the host's name: not the build's
                continue
            raise
        removed.append(name)
    for host in sorted(hosts):
        try:
            os.rmdir(os.path.join(out_dir, host))
        except OSError:  # not empty (or not a directory): left alone
            continue
    return removed


def _finish_commit(out_dir: str, staging: str) -> list[str]:
    """Steps 2 to 4 of a commit whose record is in ``staging`` (again, if they were begun);
    returns the names removed."""
    with open(os.path.join(staging, COMMIT_RECORD), "rb") as fh:
        record = json.load(fh)
    if not isinstance(record, dict) or "files" not in record:
        raise ValueError(f"{staging}: not a commit record")
    files, previous = own_files(record["files"]), own_files(record.get("previous"))
    _move_in(out_dir, staging, files)
    manifest = os.path.join(staging, MANIFEST)
    if not os.path.lexists(manifest):
        _write_json(manifest, {"files": files})
    os.replace(manifest, os.path.join(out_dir, MANIFEST))
    _sync_directory(out_dir)
    removed = _remove_old(out_dir, sorted(set(previous) - set(files)))
    shutil.rmtree(staging)
    return removed


class StagedDirectory:
    """Use as a context manager around a build: files written into :attr:`staging` reach the
    output directory only by :meth:`commit`; leaving without it removes them."""

    def __init__(self, out_dir: str) -> None:
        self.out_dir = out_dir
        self.staging = ""
        self._lock = -1
        self._committing = False

    def __enter__(self) -> Self:
        try:
            os.makedirs(self.out_dir, exist_ok=True)
            self._lock = os.open(self.out_dir, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise CommandError(
                f"--out {self.out_dir}: cannot be used as the output directory: "
                f"{exc.strerror or exc}"
            ) from exc
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock)
            raise CommandError(f"--out {self.out_dir}: another build is writing into it") from None
        self._recover()
        self.staging = tempfile.mkdtemp(
            prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX, dir=self.out_dir
        )
        return self

    def _recover(self) -> None:
        """Finish a commit a dead build began; remove what builds that never got there left."""
        with os.scandir(self.out_dir) as entries:
            stale = [
                e.path
                for e in entries
                if e.name.startswith(STAGING_PREFIX)
                and e.name.endswith(STAGING_SUFFIX)
                and e.is_dir(follow_symlinks=False)
            ]
        for path in sorted(stale):
            try:
                _finish_commit(self.out_dir, path)
            except (FileNotFoundError, ValueError):  # no complete commit record: nothing moved
                shutil.rmtree(path)

    def previous_files(self) -> list[str]:
        """What the previous build wrote, from its manifest."""
        return read_manifest(self.out_dir)

    def commit(self, files: list[str]) -> list[str]:
        """Move ``files`` (written into :attr:`staging`, the index last) into the output
        directory and forget the previous build's other files; returns those removed."""
        for name in files:
            target = os.path.join(self.out_dir, name)
            if os.path.isdir(target) and not os.path.islink(target):
                raise CommandError(f"{target} is a directory: the build cannot put its file there")
            host = os.path.join(self.out_dir, _split_name(name)[0])
            if os.path.lexists(host) and (os.path.islink(host) or not os.path.isdir(host)):
                raise CommandError(
                    f"{host} is not a directory of the build's own (a symlink or a file): the "
                    "build cannot put its host's files there"
                )
        _write_json(
            os.path.join(self.staging, COMMIT_RECORD),
            {"files": files, "previous": self.previous_files()},
        )
        _sync_directory(self.staging)
        # from here on the commit is finished, now or by the next build (the record stays)
        self._committing = True
        with _signals_held():
            removed = _finish_commit(self.out_dir, self.staging)
        self.staging = ""
        return removed

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self.staging and not self._committing:
                shutil.rmtree(self.staging, ignore_errors=True)
                self.staging = ""
        finally:
            os.close(self._lock)
