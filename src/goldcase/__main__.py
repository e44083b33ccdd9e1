from __future__ import annotations

from goldcase.cli import main

raise SystemExit(main())
