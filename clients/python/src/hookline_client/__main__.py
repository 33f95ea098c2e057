"""`python -m hookline_client`: the `hookline` command."""

import sys

from .cli import main

sys.exit(main())
