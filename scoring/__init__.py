"""Tool-definition quality: the six TDQS dimensions, lints and the server roll-up.

Pure and offline: plain snapshot data in, plain data out; imports neither ``mcp`` nor a database driver.
"""
