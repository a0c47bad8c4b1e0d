"""The HTTP registry service: the app, its HTTP plumbing, caches and OpenAPI document."""
