"""The SQLite store: connections, every SQL statement, schema."""
