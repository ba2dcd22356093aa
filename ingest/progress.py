"""A progress bar on a terminal, nothing when output is piped or redirected."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(iterable: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar on stderr, disabled unless stderr is a terminal."""
    if not sys.stderr.isatty():
        yield from iterable
        return
    # imported here: tqdm costs a tenth of a second of every start, and a piped run
    # (the usual case) never draws a bar
    from tqdm import tqdm

    yield from tqdm(
        iterable, total=total, desc=desc or None, unit=" lines", file=sys.stderr, mininterval=0.5
    )


def progress_blocks(
    blocks: Iterable[tuple[list[str], float]], *, desc: str = ""
) -> Iterator[tuple[list[str], float]]:
    """Like :func:`progress` for lines read a block at a time (``FileSource.text_blocks``):
    the bar counts lines."""
    if not sys.stderr.isatty():
        yield from blocks
        return
    from tqdm import tqdm  # as in progress(): only when a bar is drawn

    with tqdm(desc=desc or None, unit=" lines", file=sys.stderr, mininterval=0.5) as bar:
        for block in blocks:
            bar.update(len(block[0]))
            yield block
