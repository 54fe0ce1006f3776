"""Benchmark: ``validate`` and ``backfill`` on a gzip bomb and on a large plain sitemap.

    .venv/bin/python benchmarks/bench_hostile_xml.py     # a 10 GiB bomb, a 200 MiB file
    .venv/bin/python benchmarks/bench_hostile_xml.py --bomb-gib 1 --plain-mib 60

It writes, streaming, three inputs into a temporary directory:

- ``small.xml``: a valid urlset of ten URLs, the floor (the interpreter and the readers loaded);
- ``bomb.xml.gz``: a urlset whose ``<url>`` elements inflate to ``--bomb-gib`` GiB from a file
  of a few tens of MB (one 64 MiB gzip member repeated: gzip readers join members);
- ``plain.xml``: a plain urlset of ``--plain-mib`` MiB, over the protocol's 52,428,800 bytes.

The inputs are written by a child process of their own, so that this process stays small: a
child started with ``vfork`` reports the peak of its parent's memory until it ``exec``s. Each
command runs as a child process (the installed console script), one at a time; for each it
prints the wall time and the child's peak RSS (``os.wait4``), and the ratio of that peak to the
floor's peak for the same command. Both readers stop at the protocol's byte limit, so neither the
time nor the memory depends on the size the bomb claims.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
OPEN = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
UNIT = b"<url><loc>https://www.example.com/a</loc></url>\n"


def write_inputs(folder: Path, bomb_gib: int, plain_mib: int) -> None:
    small = folder / "small.xml"
    small.write_bytes(
        OPEN
        + b"".join(f"<url><loc>https://www.example.com/{i}</loc></url>".encode() for i in range(10))
        + b"</urlset>\n"
    )
    member = gzip.compress(UNIT * (64 * 2**20 // len(UNIT)), 9)
    bomb = folder / "bomb.xml.gz"
    with bomb.open("wb") as out:
        out.write(gzip.compress(OPEN, 9))
        for _ in range(bomb_gib * 16):
            out.write(member)
    plain = folder / "plain.xml"
    with plain.open("wb") as out:
        out.write(OPEN)
        block = UNIT * (2**20 // len(UNIT))
        for _ in range(plain_mib):
            out.write(block)
        out.write(b"</urlset>\n")


def run(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak RSS in MiB, exit status) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if b"Traceback" in err:
        raise SystemExit(err.decode(errors="replace")[-2000:])
    return seconds, usage.ru_maxrss / 1024, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bomb-gib", type=int, default=10)
    parser.add_argument("--plain-mib", type=int, default=200)
    parser.add_argument("--write", metavar="DIR", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.write:
        write_inputs(Path(options.write), options.bomb_gib, options.plain_mib)
        return
    command = str(BIN / "sitemap-updater")
    with tempfile.TemporaryDirectory() as held:
        folder = Path(held)
        sizes = ["--bomb-gib", str(options.bomb_gib), "--plain-mib", str(options.plain_mib)]
        subprocess.run([sys.executable, __file__, "--write", held, *sizes], check=True)
        inputs = {name: folder / f"{name}.xml" for name in ("small", "plain")}
        inputs["bomb"] = folder / "bomb.xml.gz"
        print(
            f"bomb: {inputs['bomb'].stat().st_size / 2**20:.1f} MiB of gzip, "
            f"{options.bomb_gib} GiB inflated; plain: {options.plain_mib} MiB"
        )
        out = ["--out", str(folder / "out.jsonl"), "--no-progress"]
        for name, before, after in (
            ("validate", [command, "validate"], []),
            ("backfill", [command, "backfill", "--from"], out),
        ):
            _, floor, _ = run([*before, str(inputs["small"]), *after])
            print(f"{name} small.xml: peak {floor:.1f} MiB (floor)")
            for case in ("bomb", "plain"):
                seconds, peak, code = run([*before, str(inputs[case]), *after])
                print(
                    f"{name} {case}: {seconds:.2f} s, peak {peak:.1f} MiB "
                    f"({peak / floor:.2f}x the floor), exit {code}"
                )


if __name__ == "__main__":
    main()
