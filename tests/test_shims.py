# SPDX-License-Identifier: GPL-2.0
"""The compile checks can fail: each wrong conversion in fixtures/wrong is
rejected by the strict v4.15 shims."""

import pytest

from conftest import FIXTURES, compile_c

WRONG = sorted(p.name for p in (FIXTURES / "wrong").glob("*.c"))


@pytest.mark.parametrize("name", WRONG)
def test_wrong_conversion_does_not_build(name):
    proc = compile_c(FIXTURES / "wrong" / name, "v4.15")
    assert proc.returncode != 0, name
    assert "error" in proc.stderr
