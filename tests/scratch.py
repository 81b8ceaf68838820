"""Scratch folders of the whole-program tests: removed when the test passes,
kept (and their paths printed) when it fails, so that a passing `make test`
leaves nothing behind in the temporary directory and a failure can still be
looked at.

    import scratch

    def main():
        tmp = scratch.folder("pams-cli-")   # instead of tempfile.mkdtemp
        ...
        sys.exit(1 if failures else 0)

    if __name__ == "__main__":
        scratch.run(main)                   # instead of main()

run() calls main and removes the folders made meanwhile when it ends with
exit status 0 or 77 (ctest's "skipped"), by returning or by sys.exit; any
other status or an exception keeps them.
"""
import shutil
import sys
import tempfile

_folders = []


def folder(prefix):
    """Makes a new folder in the temporary directory and returns its path."""
    path = tempfile.mkdtemp(prefix=prefix)
    _folders.append(path)
    return path


def run(main):
    """Runs main() (its return value is the exit status) and exits with its
    status, removing the scratch folders if it passed."""
    status = 1
    try:
        status = main()
    except SystemExit as e:
        status = e.code
    finally:
        passed = status in (None, 0, 77)
        for path in _folders:
            if passed:
                shutil.rmtree(path, ignore_errors=True)
            else:
                print(f"scratch folder kept: {path}", file=sys.stderr)
    sys.exit(status)
