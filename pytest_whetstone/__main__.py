"""python -m pytest_whetstone: the whetstone command."""

import sys

from .cli import main

sys.exit(main())
