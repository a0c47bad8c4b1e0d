"""Crawls as jobs on a distributed task queue (Dramatiq on Redis or RabbitMQ): a pass is queued as
one inspection job per server, and any number of worker processes record each job's one outcome.
"""
