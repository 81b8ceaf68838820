#!/usr/bin/env python3
"""The Makefile configures the build the same way whatever the order of its
targets: the PAMS_TENSORFLOW_LIBRARY it passes to cmake is the same before
`make tensorflow` has made .venv-tf as after, so that `make demo` then `make
test` does not compile the engine again. Checked with `make -n configure`
(which prints the cmake command without running it) in two scratch
directories holding a copy of the Makefile, one with a .venv-tf that has
libtensorflow_cc.so.2 and one without.

Usage: makefile_test.py --source-dir DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def configure_command(directory):
    proc = subprocess.run(["make", "-n", "-C", directory, "configure"], capture_output=True,
                          text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source-dir", required=True)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-makefile-")
    try:
        before, after = os.path.join(tmp, "before"), os.path.join(tmp, "after")
        for d in (before, after):
            os.makedirs(d)
            shutil.copy(os.path.join(args.source_dir, "Makefile"), d)
        version = subprocess.run(
            ["/usr/bin/python3", "-c", 'import sys; print("%d.%d" % sys.version_info[:2])'],
            capture_output=True, text=True).stdout.strip() or "3.11"
        library = os.path.join(after, ".venv-tf", "lib", f"python{version}", "site-packages",
                               "tensorflow", "libtensorflow_cc.so.2")
        os.makedirs(os.path.dirname(library))
        open(library, "w").close()
        status_before, command_before = configure_command(before)
        status_after, command_after = configure_command(after)
        value = lambda c: (re.findall(r"-DPAMS_TENSORFLOW_LIBRARY=(\S*)", c) or [None])[0]
        failures = []
        if status_before != 0 or status_after != 0:
            failures.append(f"make -n configure failed: {command_before!r} {command_after!r}")
        expected = library.replace(after, "DIR")
        got_before = (value(command_before) or "").replace(before, "DIR")
        got_after = (value(command_after) or "").replace(after, "DIR")
        if got_before != got_after or got_after != expected:
            failures.append(f"PAMS_TENSORFLOW_LIBRARY before .venv-tf {got_before!r}, after "
                            f"{got_after!r}, expected {expected!r} both times")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{'ok' if not failures else 'FAILED'}: the Makefile configures the same way "
          "before and after .venv-tf exists")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
