"""``python -m gecscore``: see gecscore.cli."""

import sys

from gecscore.cli import main

sys.exit(main())
