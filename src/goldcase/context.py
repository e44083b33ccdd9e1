"""What a check may see: the config, the corpus, the cache, the repository's files."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from msgspec import Struct, field

from goldcase.cache import Cache
from goldcase.config import Config
from goldcase.corpus import Corpus, load_corpus
from goldcase.loader import Locator
from goldcase.safeio import read_inside

T = TypeVar("T")


class Context(Struct, dict=True):
    config: Config
    cache: Cache = field(default_factory=lambda: Cache(None))
    # The files whose findings are wanted (``goldcase check PATHS``); None: every file. A
    # check that looks at one case at a time skips the others; set-wide rules still read the
    # whole set, and may skip the work whose findings would all land elsewhere.
    focus: frozenset[str] | None = None
    # Per-file results of the families' ``prepare`` that a cold check's parse workers computed
    # (``engine``): (family, path) -> what the family's own per-file step returns for that file.
    prepared: dict[tuple[str, str], Any] = field(default_factory=dict)

    def wanted(self, path: str) -> bool:
        """Whether findings about ``path`` are wanted."""
        return self.focus is None or path in self.focus

    @property
    def root(self) -> Path:
        return self.config.root

    @cached_property
    def corpus(self) -> Corpus:
        return load_corpus(self.config.corpus_dir, self.config.root, self.cache)

    def rel(self, path: Path) -> str:
        """A path as findings show it: relative to the repository root, POSIX style."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    @property
    def set_path(self) -> str:
        """Where a finding about the whole set points (at 1:1, or at a table of the config):
        the config file, where floors, shares and ambiguous slices are set, or, with no config
        file, the golden cases folder. ``check PATHS`` reports such findings whatever the
        paths, once per run."""
        source = self.config.source
        if source is not None:
            return self.rel(source)
        return self.rel(self.config.cases_dir / "golden")

    def read_bytes(self, rel: str) -> bytes:
        """A file of the repository, through the guarded reader (inside it, regular, capped)."""
        return read_inside(self.root, rel)

    def ahead(self, family: str, path: str) -> Any:
        """What a parse worker computed for ``path`` with ``family``'s ``prepare`` in this run,
        taken once; None when none did (the family computes it itself)."""
        return self.prepared.pop((family, path), None)

    def locate(self, rel: str, key_path: list[str | int], key: bool = False) -> tuple[int, int]:
        """Line and column of the value (or with ``key``, the key) at ``key_path`` in a file;
        1:1 when the file can no longer be read."""
        try:
            locator = Locator(self.read_bytes(rel))
        except OSError:
            return 1, 1
        return locator.key(key_path) if key else locator.value(key_path)

    def per_case(
        self,
        family: str,
        key: tuple[str, str, str],
        compute: Callable[[], list[T]],
        codec: tuple[Callable[[T], Any], Callable[[Any], T | None]],
    ) -> list[T]:
        """``compute()``, cached by ``key``: a case file's path, its bytes' digest and whatever
        else the result depends on. A check that looks at one case at a time then costs
        nothing on a warm run. ``codec`` turns an item into cache data and back (None: the
        data has another shape, and the whole entry is computed again)."""
        name = ":".join(key)
        encode, decode = codec
        cached = self.cache.get(family, name)
        if type(cached) is list:
            items = [decode(item) for item in cached]
            if all(item is not None for item in items):
                return [item for item in items if item is not None]
        found = compute()
        self.cache.put(family, name, [encode(item) for item in found])
        return found
