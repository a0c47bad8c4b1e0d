"""The active memory-server probe: its session, fixtures, checks and measured token cost and
latency.
"""
