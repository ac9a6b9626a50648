"""The HTTP server: JSON API, rate limits, systemd notify, malloc tuning."""
