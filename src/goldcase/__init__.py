"""goldcase: keep an evaluation golden set honest."""

from __future__ import annotations

__version__ = "0.1.0"
