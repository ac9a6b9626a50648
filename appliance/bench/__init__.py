"""Benchmarks and evaluation: ask path, serving, baselines, query-set and photo evaluation."""
