"""Scoring a run against the set: results, outcomes and checks, metrics, reports, splits.

Nothing here imports click; ``goldcase.commands`` call into these modules.
"""

from __future__ import annotations
