"""Whether an answer given as text is an abstention.

A system that returns only text (a promptfoo provider, an Inspect solver, a ``goldcase run``
worker whose response gives no ``outcome``) abstains when one of the config's
``[run] abstain_patterns`` matches its answer: regular expressions searched anywhere in the
text, case-insensitively, in the syntax Python, JavaScript and RE2 share (the config refuses
the rest), so the promptfoo export can carry the very same patterns. goldcase searches them
with RE2 (``goldcase.patterns``), in time linear in the answer's length whatever the pattern,
matching as JavaScript's ``RegExp`` with the ``i`` flag matches. The defaults
(``goldcase.config.ABSTAIN_PATTERNS``) catch "I don't know", "I can't answer that" and "the
documents do not say".

Passes (an abstention)::

    I don't know.
    Sorry, I can't answer that from the documents.

Fails (an answer)::

    You have 30 days; I don't know of any exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from goldcase.dialect import javascript_literal
from goldcase.patterns import alternation, compiled, found


@lru_cache(maxsize=16)
def _compiled(patterns: tuple[str, ...]) -> Any:
    return compiled(patterns) if patterns else None


def abstains(text: str, patterns: Sequence[str]) -> bool:
    """True when one of ``patterns`` matches ``text``."""
    expression = _compiled(tuple(patterns))
    return expression is not None and found(expression, text)


def javascript_regexp(patterns: Sequence[str]) -> str:
    """A JavaScript expression for a ``RegExp`` whose ``test(text)`` is ``abstains(text,
    patterns)``; ``null`` when there is no pattern (nothing abstains by its text)."""
    if not patterns:
        return "null"
    return f"new RegExp({javascript_literal(alternation(patterns))}, 'i')"
