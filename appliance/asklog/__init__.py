"""The ask log and its review: durable log, teacher review, usage, photo archive, ask tokens."""
