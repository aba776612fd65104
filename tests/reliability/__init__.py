"""Reliability tests: concurrency, crash safety, fuzzed arguments, hostile content."""
