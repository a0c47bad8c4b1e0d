"""The data model and the small pure helpers every layer shares: the snapshot, errors, names,
limits, strict JSON, printable text, text diffs, paths, templates and the memory profile.
"""
