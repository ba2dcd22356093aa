"""``python -m vigia.service.cli``: the same as the ``vigia`` command."""

import sys

from vigia.service.cli import main

sys.exit(main())
