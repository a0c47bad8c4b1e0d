"""Reads its requests and never answers any of them."""

import sys
import time

for _line in sys.stdin:
    pass
time.sleep(3600)
