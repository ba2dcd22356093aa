"""Opening and listing entries of a folder that anyone may have written to, without
following a link or waiting on a fifo.

The archive's readers and its run meet whatever ended up in the folder (``archive_files``
decides what to do with a bad entry); these are the system calls underneath, kept apart
so that what makes an open or a listing safe can be read, and checked, in one place.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class NotRegularFile(OSError):
    """The entry turned out not to be a regular file when opened."""


def open_regular(path: Path) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file in a real folder (only
    the archive's root may be a link), never waiting on a fifo."""
    nofollow = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        folder = os.open(path.parent, nofollow | os.O_DIRECTORY)
        try:
            fd = os.open(path.name, nofollow | os.O_NONBLOCK, dir_fd=folder)
        finally:
            os.close(folder)
    except OSError as exc:
        # a link (the file or its folder), a socket, a file where the folder was
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.ENOTDIR):
            raise NotRegularFile(exc.errno, "not a regular file", str(path)) from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def real_dir(path: Path) -> bool:
    """Whether ``path`` is a folder itself, not a link to one (nor anything else)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def entries(
    folder: Path, want: Callable[[str], bool], *, link_ok: bool = False
) -> list[tuple[Path, os.stat_result]]:
    """(path, lstat) of the entries of ``folder`` whose names ``want`` admits; none when
    it does not exist. The folder is opened without following a link (unless
    ``link_ok``: the archive's own root may be one), and listed through that descriptor,
    so it cannot be swapped for a link between a check and the listing."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if link_ok else os.O_NOFOLLOW)
    try:
        fd = os.open(folder, flags)
    except FileNotFoundError:
        return []
    try:
        out = []
        for name in os.listdir(fd):
            if want(name):
                try:
                    out.append((folder / name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
                except FileNotFoundError:
                    continue  # moved aside by another process meanwhile
        return out
    finally:
        os.close(fd)
