import sys

import pytest

from appliance.serve.malloc import limit_arenas


def test_zero_leaves_malloc_alone():
    assert limit_arenas(0) is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_glibc_takes_the_arena_limit():
    assert limit_arenas(2) is True
