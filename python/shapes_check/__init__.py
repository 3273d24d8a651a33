"""The ``shapes`` command, installed by the ``shapes-check`` wheel.

The wheel's work is done by the ``shapes`` binary it installs beside the Python interpreter's
scripts; this package only finds it, so that ``python -m shapes_check ...`` runs it too.
"""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["find_shapes_bin"]


def find_shapes_bin() -> str:
    """Return the path of the ``shapes`` binary this package was installed with.

    Looked for where pip puts a wheel's scripts: the environment's scripts directory, the
    user scheme's (``pip install --user``), and ``bin/`` beside the package
    (``pip install --target``).
    """
    exe = "shapes" + (sysconfig.get_config_var("EXE") or "")
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user_scheme = "nt_user"
    else:
        user_scheme = "posix_user"
    candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe))
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates.append(os.path.join(package_root, "bin", exe))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the shapes binary is not installed beside this package; looked in: "
        + ", ".join(candidates)
    )
