"""``python -m rankstats``: the ``rankstats`` command."""

from rankstats.cli import main

raise SystemExit(main())
