"""Per-ask tokens: only whoever received an answer card can read that ask back or rate it.

Ask ids are sequential, so the HTTP routes that take one also need the card's token, an
HMAC of the id under a secret created once per installation and kept in the database.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from appliance.db import sql
from appliance.db.store import Store

SECRET_KEY = "ask_token_secret"


class AskTokens:
    def __init__(self, store: Store):
        self._secret = self._load_or_create(store)

    def token(self, ask_id: int) -> str:
        return hmac.new(self._secret, str(ask_id).encode(), hashlib.sha256).hexdigest()[:32]

    def valid(self, ask_id: int, token: object) -> bool:
        """True for this ask's token; False for anything else, including non-ASCII text
        (which ``hmac.compare_digest`` would refuse with TypeError)."""
        if not isinstance(token, str) or not token or not token.isascii():
            return False
        return hmac.compare_digest(self.token(ask_id), token)

    @staticmethod
    def _load_or_create(store: Store) -> bytes:
        value = store.meta_get(SECRET_KEY)
        if not value:
            with store.transaction() as conn:
                conn.execute(sql.META_SET_ONCE, (SECRET_KEY, secrets.token_hex(32)))
            value = store.meta_get(SECRET_KEY)
        return bytes.fromhex(value)
