"""JSON Schema helpers shared by the registry, the scorer and the memory server, so that none of
them imports another for them: resolving local ``$ref`` pointers.
"""
