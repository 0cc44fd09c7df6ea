"""``python -m scoring.gec``: see scoring.gec.cli."""

import sys

from scoring.gec.cli import main

sys.exit(main())
