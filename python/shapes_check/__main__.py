"""``python -m shapes_check ARGS`` runs ``shapes ARGS`` and exits with its exit code."""

from __future__ import annotations

import os
import sys

from shapes_check import find_shapes_bin


def main() -> None:
    shapes = find_shapes_bin()
    args = [shapes, *sys.argv[1:]]
    if sys.platform == "win32":
        import subprocess

        sys.exit(subprocess.run(args).returncode)
    os.execv(shapes, args)


if __name__ == "__main__":
    main()
