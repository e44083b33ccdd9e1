"""How long the drafts take to label, by the method's arithmetic.

First pass: every item is read and labelled, ``seconds_per_item`` each (60 by default: "about
60 seconds to read a ticket and assign a label"; 200 items are 200 x 60 s = 12,000 s, 3.3
hours). Second pass: the current prompt is run on the labelled items, and every item where its
answer and the label differ is looked at again; those are the hard items, two or three minutes
each (``seconds_per_disagreement``, 150 by default). How many differ is expected as:

- every flagged item: the trace failed a check, hit a cap or was thumbed down, so production's
  answer is expected to differ from the label;
- an item without a flag: ``1 - pass_rate`` of them (the prompt's pass rate on random
  traffic, 0.9 by default: about 20 of 200 items).

So 50 drafts, 40 flagged and 10 without a flag, take 50 x 60 s = 50 min, then (40 + 10 x 0.1) = 41
expected disagreements x 150 s = 1 h 42 min 30 s: 2 h 32 min 30 s of the labeller's time in
all.
"""

from __future__ import annotations

from msgspec import Struct


class Estimate(Struct, frozen=True):
    flagged: int  # items that carry a flag (failed check, cap, thumbs-down)
    random: int  # items without one
    seconds_per_item: int
    seconds_per_disagreement: int
    pass_rate: float

    @property
    def items(self) -> int:
        return self.flagged + self.random

    @property
    def first_pass(self) -> int:
        return self.items * self.seconds_per_item

    @property
    def disagreements(self) -> float:
        return self.flagged + self.random * (1 - self.pass_rate)

    @property
    def second_pass(self) -> int:
        return round(self.disagreements * self.seconds_per_disagreement)

    @property
    def total(self) -> int:
        return self.first_pass + self.second_pass

    def as_dict(self) -> dict[str, float | int]:
        return {
            "items": self.items,
            "flagged": self.flagged,
            "random": self.random,
            "seconds_per_item": self.seconds_per_item,
            "first_pass_seconds": self.first_pass,
            "pass_rate": self.pass_rate,
            "expected_disagreements": round(self.disagreements, 2),
            "seconds_per_disagreement": self.seconds_per_disagreement,
            "second_pass_seconds": self.second_pass,
            "total_seconds": self.total,
        }

    def lines(self) -> list[str]:
        """The arithmetic, written out."""
        share = f"{1 - self.pass_rate:.0%}"
        return [
            f"first pass: {self.items} items x {self.seconds_per_item} s = "
            f"{duration(self.first_pass)}",
            f"second pass: ({self.flagged} flagged + {self.random} not flagged x {share}) = "
            f"{self.disagreements:g} expected disagreements x {self.seconds_per_disagreement} s"
            f" = {duration(self.second_pass)}",
            f"in all: about {duration(self.total)} of the labeller's time",
        ]


def duration(seconds: int) -> str:
    """``9150`` -> ``2 h 32 min 30 s``; ``3000`` -> ``50 min``; ``0`` -> ``0 s``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{hours} h" if hours else "",
        f"{minutes} min" if minutes else "",
        f"{secs} s" if secs else "",
    ]
    return " ".join(p for p in parts if p) or "0 s"
