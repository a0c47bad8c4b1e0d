"""The static directory site: view models, slugs, schema rows, encoders and the writer. Pure apart
from writing files.
"""
