"""The teacher pages' download folders: nothing made at start (a restart leaves nothing in
/tmp), private when made, gone with their owner."""

from __future__ import annotations

import gc
import stat

from ui.teacher_log import export_folder, fresh_export


class _Tab:
    pass


def test_a_folder_is_made_at_the_first_export_only_and_removed_with_its_owner():
    tab = _Tab()
    folder = export_folder(tab)
    assert not folder.exists()
    path = fresh_export(folder, "log")
    path.write_text("q\n", encoding="utf-8")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    del tab
    gc.collect()
    assert not folder.exists()
