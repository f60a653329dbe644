"""Build stages cached outside the repository, each keyed on a hash of its inputs.

A stage is a directory under ``$XDG_CACHE_HOME/magboard-system/`` (``~/.cache/...`` when
unset; ``$MAGBOARD_SYSTEM_CACHE`` overrides the whole path) named ``<stage>-<hash>``. When
it exists and is complete it is reused (warm); otherwise it is built into a temporary
directory beside it and renamed into place only when the build succeeded (cold), so an
interrupted build leaves nothing that looks finished. Older versions of the same stage are
removed. Every use is noted in :data:`LEDGER`, for the report.

>>> import tempfile
>>> cache = Cache(Path(tempfile.mkdtemp()))
>>> made = cache.stage("demo", {"text": "hello"}, lambda out: (out / "f").write_text("hello"))
>>> (made / "f").read_text(), LEDGER[-1].cold
('hello', True)
>>> cache.stage("demo", {"text": "hello"}, lambda out: None) == made, LEDGER[-1].cold
(True, False)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

COMPLETE = ".complete"


@dataclass(frozen=True)
class StageUse:
    """One stage as a run used it: built now (cold) or found (warm), and how long it took."""

    name: str
    path: Path
    cold: bool
    seconds: float


#: The stages used in this process, in order.
LEDGER: list[StageUse] = []


def default_root() -> Path:
    explicit = os.environ.get("MAGBOARD_SYSTEM_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "magboard-system"


def digest(inputs: Mapping[str, str | bytes]) -> str:
    """A stable hash of named inputs (texts or bytes)."""
    h = hashlib.sha256()
    for name in sorted(inputs):
        value = inputs[name]
        data = value.encode() if isinstance(value, str) else value
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Cache:
    """The stages' directory; see the module docstring."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_root()

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        """One builder of a stage at a time (two test runs at once wait for each other)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / f".{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def stage(
        self,
        name: str,
        inputs: Mapping[str, str | bytes],
        build: Callable[[Path], None],
    ) -> Path:
        """The directory of stage ``name`` for these ``inputs``, built by ``build(dir)``
        when absent."""
        key = digest(inputs)[:16]
        final = self.root / f"{name}-{key}"
        started = time.monotonic()
        with self._locked(name):
            if (final / COMPLETE).exists():
                LEDGER.append(StageUse(name, final, False, time.monotonic() - started))
                return final
            work = self.root / f".{name}-{key}.building-{os.getpid()}"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            try:
                build(work)
                described = {k: (v if isinstance(v, str) else f"<{len(v)} bytes>")
                             for k, v in inputs.items()}  # fmt: skip
                (work / "inputs.json").write_text(json.dumps(described, indent=1) + "\n")
                (work / COMPLETE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S\n"))
                shutil.rmtree(final, ignore_errors=True)
                work.rename(final)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                raise
            for older in self.root.glob(f"{name}-*"):
                if older != final and older.is_dir():
                    shutil.rmtree(older, ignore_errors=True)
        LEDGER.append(StageUse(name, final, True, time.monotonic() - started))
        return final
