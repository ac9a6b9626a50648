"""Teacher accounts: password hashes, sessions, lockout, the teacher CLI."""
