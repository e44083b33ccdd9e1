"""Whether an answer given as text is an abstention.

A system that returns only text (a promptfoo provider, an Inspect solver, a ``goldcase run``
worker whose response gives no ``outcome``) abstains when one of the config's
``[run] abstain_patterns`` matches its answer: regular expressions searched anywhere in the
text, case-insensitively, in the syntax Python and JavaScript share (the config refuses the
rest), so the promptfoo export can carry the very same patterns. The defaults
(``goldcase.config.ABSTAIN_PATTERNS``) catch "I don't know", "I can't answer that" and "the
documents do not say".

Passes (an abstention)::

    I don't know.
    Sorry, I can't answer that from the documents.

Fails (an answer)::

    You have 30 days; I don't know of any exception.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from goldcase.dialect import javascript_literal

# ASCII: \\w, \\b, \\d and \\s then mean in Python what they mean in a JavaScript RegExp
_FLAGS = re.IGNORECASE | re.ASCII


@lru_cache(maxsize=16)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile(_alternation(patterns), _FLAGS)


def _alternation(patterns: Sequence[str]) -> str:
    return "|".join(f"(?:{pattern})" for pattern in patterns)


def abstains(text: str, patterns: Sequence[str]) -> bool:
    """True when one of ``patterns`` matches ``text``."""
    compiled = _compiled(tuple(patterns))
    return compiled is not None and compiled.search(text) is not None


def javascript_regexp(patterns: Sequence[str]) -> str:
    """A JavaScript expression for a ``RegExp`` whose ``test(text)`` is ``abstains(text,
    patterns)``; ``null`` when there is no pattern (nothing abstains by its text)."""
    if not patterns:
        return "null"
    return f"new RegExp({javascript_literal(_alternation(patterns))}, 'i')"
