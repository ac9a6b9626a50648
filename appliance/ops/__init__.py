"""Operations: online backup and restore."""
