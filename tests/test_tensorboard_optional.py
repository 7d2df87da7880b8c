"""Without the optional ``tensorboard`` package, ``ferric.utils.tensorboard`` fails to
import with an ``ImportError`` that says what to install, and the rest of ferric is
unaffected (runs whether or not tensorboard is installed)."""

import subprocess
import sys

SCRIPT = """
import sys
sys.modules["tensorboard"] = None  # as if it were not installed
import ferric, ferric.utils
try:
    import ferric.utils.tensorboard
except ImportError as e:
    print("ImportError:", e)
"""


def test_missing_tensorboard_raises_a_clear_import_error():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("ImportError: TensorBoard logging requires the 'tensorboard' package")
    assert "pip install" in out
