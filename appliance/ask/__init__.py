"""The ask path: hybrid search, the same-problem checks, confidence, answer cards, the ask service."""
