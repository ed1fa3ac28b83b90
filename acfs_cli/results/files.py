"""Files a results folder holds, written so that a reader or a killed run never sees half of
one (DESIGN.md section 5), and the folder's run lock.

Every file is written to a temporary name in its own folder, flushed to disk and then renamed
over the target (``os.replace`` is atomic on POSIX), so a file either holds what was written
or does not exist. Temporary names start with a dot and end in ``.tmp``, so a reader that
globs for results never picks them up. Files get the permissions the umask allows (0644
under umask 022), not those of a temporary file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

#: The suffix of a file being written (never a name a reader looks for).
TMP_SUFFIX = ".tmp"


class StoreError(RuntimeError):
    """A results folder that cannot be used (unwritable, locked, or not a results table)."""


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """``data`` into ``path`` atomically, with the permissions the umask allows."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), file_mode())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


_UMASK_LOCK = threading.Lock()
_umask: int | None = None


def file_mode() -> int:
    """0666 less the process umask: what ``open()`` would give a new file (mkstemp's 0600
    would hide the results from the group)."""
    global _umask
    with _UMASK_LOCK:
        if _umask is None:
            _umask = _read_umask()
    return 0o666 & ~_umask


def _read_umask() -> int:
    """The umask, read without changing it where the system says it (Linux), else by
    setting and restoring it."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path("/proc/self/status").read_text().splitlines()
        return int(next(line for line in status if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


@contextlib.contextmanager
def hold_lock(path: Path) -> Iterator[None]:
    """Hold the lock file ``path`` (its folder made if missing) for a run: a second holder,
    in this process or another, is refused at once with one line naming the first
    (:class:`StoreError`). The lock is the operating system's (``flock``, Windows' byte-range
    lock, through ``filelock``), so it goes with the process that held it, even one killed
    by SIGKILL; never a file left behind that would block the next run."""
    from filelock import FileLock, Timeout

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot write to {path.parent}: {exc.strerror or exc}") from None
    # no soft lock where the file system has none: a marker file would outlive a killed run
    lock = FileLock(path, timeout=0, fallback_to_soft=False, on_acquired=_write_holder)
    try:
        lock.acquire()
    except Timeout:
        raise StoreError(f"{path.parent} is in use by another run ({_holder(path)}); wait for "
                         "it to finish") from None
    except OSError as exc:
        raise StoreError(f"cannot lock {path}: {exc.strerror or exc}") from None
    try:
        yield
    finally:
        lock.release()


def _write_holder(fd: int) -> None:
    """Write who holds the lock into the lock file (through its own descriptor)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"pid {os.getpid()}".encode())


def _holder(path: Path) -> str:
    """Who holds the lock, as the holder wrote it ("another process" where it cannot be
    read: Windows keeps a locked file from others)."""
    try:
        return path.read_text(encoding="utf-8").strip() or "another process"
    except (OSError, UnicodeDecodeError):
        return "another process"
