#!/usr/bin/env python3
"""The wheel of `make wheel` (dist/) installs with pip into a fresh venv on a
machine with no compiler and no -dev packages, and runs CI2002 as the CLI
does.

This machine has them all, so the install and the run happen where they are
hidden: in a mount namespace of their own (unshare, as root), /usr/include
is an empty folder, the compilers and CMake are empty files, and so is the
system's copy of every library the wheel carries (libcairo.so.2,
libfmt.so.9, libpixman, ...): a wheel that still needed one of them fails
to import. pip installs from dist/ and build-wheel/deps only (no index) and
only wheels (--only-binary): it cannot build anything. tests/wheel_smoke.py
then runs CI2002 with a StepsCsvLogger and draws its chart in the venv, and
the CSV must equal `pams run --steps-csv`'s byte for byte. Where no
namespace can be made (not root), the same runs with the system's files in
place and says so; wheel_smoke.py still checks that the wheel's own copies
of the libraries were loaded.

Usage: wheel_test.py --source-dir DIR --pams PAMS [--python /usr/bin/python3]
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# What a build needs and the machine of a wheel's user lacks.
COMPILERS = ("cc", "c++", "gcc", "g++", "clang", "clang++", "cmake", "ninja")
LIBRARY_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
                "/usr/lib", "/lib")


def wheel_for(dist, python):
    tag = subprocess.run(
        [python, "-c", "import sys; print('cp%d%d' % sys.version_info[:2])"],
        capture_output=True, text=True, check=True).stdout.strip()
    wheels = sorted(glob.glob(os.path.join(dist, f"pams_cpp-*-{tag}-{tag}-manylinux_*.whl")))
    if not wheels:
        sys.exit(f"FAIL: no manylinux wheel for {tag} in {dist}: run `make wheel`")
    return wheels[-1]


def carried_sonames(wheel):
    """The system libraries the wheel carries: pams_cpp.libs/libcairo-1a2b3c4d.so.2.11600.0
    stands for libcairo.so.2 (auditwheel's renaming)."""
    import zipfile

    names = []
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith("pams_cpp.libs/"):
                base = os.path.basename(name)
                stem, _, rest = base.partition(".so")
                stem = stem.rsplit("-", 1)[0]
                major = rest.lstrip(".").split(".")[0]
                names.append(f"{stem}.so.{major}" if major else f"{stem}.so")
    return names


def system_closure(wheel, tmp):
    """The system libraries the wheel's ELF files use (those manylinux lets
    every Linux provide: libc, libstdc++, libX11, libz, ...), with all they
    load in turn: a machine that has libX11 has its libxcb, which the wheel
    carries too (for cairo) but which must stay in place for libX11."""
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        z.extractall(os.path.join(tmp, "wheel"))
    needed = set()
    for path in glob.glob(os.path.join(tmp, "wheel", "**", "*.so*"), recursive=True):
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
        for line in dynamic.splitlines():
            if "(NEEDED)" in line:
                needed.add(line.split("[", 1)[1].rstrip("]"))
    # auditwheel names its copies lib<name>-<8 hex digits>.so...
    system = {n for n in needed if not re.search(r"-[0-9a-f]{8}\.so", n)}
    closure = set(system)
    for soname in system:
        for directory in LIBRARY_DIRS:
            path = os.path.join(directory, soname)
            if os.path.exists(path):
                out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
                closure.update(line.split()[0] for line in out.splitlines() if "=>" in line)
                break
    return closure


def hidden_files(sonames, keep):
    """The files to hide: the system copy of each library the wheel carries
    (but those the system's own libraries load), the compilers."""
    files = set()
    for soname in sonames:
        if soname in keep:
            continue
        for directory in LIBRARY_DIRS:
            path = os.path.join(directory, soname)
            if os.path.exists(path):
                files.add(os.path.realpath(path))
    for tool in COMPILERS:
        path = shutil.which(tool)
        if path:
            files.add(os.path.realpath(path))
    return sorted(files)


def namespace_works():
    try:
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                              capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--pams", required=True, help="the pams command (build/bin/pams)")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the interpreter of the fresh venv (the wheel's: Debian's)")
    args = parser.parse_args()
    start = time.monotonic()
    source = os.path.abspath(args.source_dir)
    wheel = wheel_for(os.path.join(source, "dist"), args.python)
    deps = os.path.join(source, "build-wheel", "deps")
    config = os.path.join(source, "samples", "CI2002", "config.json")
    sonames = carried_sonames(wheel)
    for needed in ("libcairo.so.2", "libfmt.so.9"):
        if not any(s.startswith(needed.split(".so")[0] + ".so") for s in sonames):
            print(f"FAIL: the wheel carries no {needed} (it carries {sonames})")
            return 1

    with tempfile.TemporaryDirectory(prefix="pams-wheel-") as tmp:
        venv = os.path.join(tmp, "venv")
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        os.makedirs(os.path.join(tmp, "empty"))
        subprocess.run([args.python, "-m", "venv", venv], check=True)
        steps = [
            [os.path.join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check",
             "--no-index", "--only-binary=:all:", "--find-links", deps, wheel],
            [os.path.join(venv, "bin", "python"), os.path.join(source, "tests", "wheel_smoke.py"),
             "--config", config, "--out-dir", out, "--seed", "42"],
        ]
        script = "set -e\n"
        isolated = namespace_works()
        keep = system_closure(wheel, tmp)
        hidden = hidden_files(sonames, keep)
        kept = sorted(set(sonames) & keep)
        if isolated:
            script += f"mount -t tmpfs none /usr/include\n"
            for path in hidden:
                script += f"mount --bind /dev/null {shlex.quote(path)}\n"
        for step in steps:
            script += " ".join(shlex.quote(a) for a in step) + "\n"
        env = {"PATH": f"{venv}/bin:/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8",
               "CC": "false", "CXX": "false", "PIP_NO_INPUT": "1"}
        command = ["sh", "-c", script]
        if isolated:
            command = ["unshare", "--mount", "--propagation", "private"] + command
        proc = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=300)
        print(proc.stdout.strip())
        if proc.returncode != 0:
            print(proc.stderr[-3000:])
            print(f"FAIL: installing or running the wheel (exit status {proc.returncode})")
            return 1

        # The same run by the CLI: the same rows, byte for byte.
        cli_csv = os.path.join(tmp, "cli-steps.csv")
        subprocess.run([args.pams, "run", config, "--seed", "42", "--quiet",
                        "--steps-csv", cli_csv], check=True, capture_output=True)
        with open(cli_csv, "rb") as a, open(os.path.join(out, "steps.csv"), "rb") as b:
            if a.read() != b.read():
                print("FAIL: the wheel's steps CSV differs from `pams run --steps-csv`'s")
                return 1

    if isolated:
        print(f"hidden: /usr/include and {len(hidden)} files: the system's copies of the "
              f"libraries the wheel carries (kept: {', '.join(kept) or 'none'}, which the "
              "system's libX11 loads), the compilers and CMake")
    else:
        print("note: no mount namespace here (not root?): the system's libraries and "
              "compilers were not hidden")
    print(f"{os.path.basename(wheel)}: installed in a fresh venv and ran CI2002 as "
          f"`pams run` does ({time.monotonic() - start:.1f} s)")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
