"""``python -m croupier`` is the ``croupier`` command."""

from croupier.cli import main

raise SystemExit(main())
