"""Tool-definition quality: the six TDQS dimensions, lints and the server roll-up.

Pure and offline: plain snapshot data in, a Scorecard out; imports neither ``mcp`` nor a database driver.
"""

from scoring.rules import LINT_RULES
from scoring.scorecard import SCORECARD_FORMAT, score_snapshot, score_tool

__all__ = ["LINT_RULES", "SCORECARD_FORMAT", "score_snapshot", "score_tool"]
