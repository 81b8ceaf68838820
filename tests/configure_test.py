#!/usr/bin/env python3
"""A build from source on a machine that lacks something: each library the
configure needs, when missing, stops it with a message naming the library,
what it is for, its Debian package and its Homebrew formula
(cmake/PamsDependency.cmake); a library found too old says which version it
found; a compiler that cannot compile C++20 as the sources use it says which
compilers to install (cmake/PamsCompilerCheck.cmake).

A library is made missing the way CMake allows for one package
(CMAKE_DISABLE_FIND_PACKAGE_<Name>, pkg-config pointed at an empty
folder, or a pkg-config program that is not there), so the test runs on a machine that has them all. Each case is a
configure of its own in a temporary folder (about a second each).

Usage: configure_test.py --source-dir DIR [--cmake CMAKE] [--cxx CXX]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import textwrap

# Only what the case needs is switched on, so that the missing library is the
# first thing the configure finds missing.
LEAN = ["-DPAMS_BUILD_TESTS=OFF", "-DPAMS_BUILD_BENCHMARKS=OFF"]

# (name, extra cmake arguments, extra environment, strings the message must hold)
CASES = [
    ("fmt", LEAN + ["-DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON"], {},
     ["pams-cpp needs fmt (formatting numbers", "apt-get install libfmt-dev",
      "brew install fmt", "scripts/install-deps.sh"]),
    ("nlohmann_json", LEAN + ["-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON"], {},
     ["pams-cpp needs nlohmann_json >= 3.11 (reading configs)",
      "apt-get install nlohmann-json3-dev", "brew install nlohmann-json"]),
    ("abseil", LEAN + ["-DCMAKE_DISABLE_FIND_PACKAGE_absl=ON"], {},
     ["pams-cpp needs absl", "apt-get install libabsl-dev", "brew install abseil"]),
    ("CLI11", LEAN + ["-DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON"], {},
     ["pams-cpp needs CLI11 (the pams command's options)", "apt-get install libcli11-dev",
      "brew install cli11"]),
    ("GTest", ["-DPAMS_BUILD_BENCHMARKS=OFF", "-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON"], {},
     ["pams-cpp needs GTest", "-DPAMS_BUILD_TESTS=OFF leaves out",
      "apt-get install libgtest-dev libgmock-dev", "brew install googletest"]),
    ("benchmark", ["-DPAMS_BUILD_TESTS=OFF", "-DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON"], {},
     ["pams-cpp needs benchmark", "-DPAMS_BUILD_BENCHMARKS=OFF leaves out",
      "apt-get install libbenchmark-dev",
      "brew install google-benchmark"]),
    ("cairo", LEAN, {"PKG_CONFIG_LIBDIR": "{tmp}/empty", "PKG_CONFIG_PATH": ""},
     ["pams-cpp needs cairo (the charts), which pkg-config does not find",
      "apt-get install libcairo2-dev", "brew install cairo"]),
    ("OpenSSL", LEAN + ["-DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON"], {},
     ["pams-cpp needs OpenSSL (CPython's str seeds", "apt-get install libssl-dev",
      "brew install openssl@3"]),
    # No pkg-config program, as on a machine without it: FindPkgConfig is
    # still there (CMake's FindOpenSSL calls its functions), pkg-config is not.
    ("pkg-config", LEAN + ["-DPKG_CONFIG_EXECUTABLE={tmp}/no-such-pkg-config"], {},
     ["pams-cpp needs PkgConfig (finding cairo)", "apt-get install pkg-config",
      "brew install pkgconf"]),
    # The Python extension alone, as `pip install .` configures it.
    ("Python", ["-DPAMS_BUILD_TESTS=OFF", "-DPAMS_BUILD_BENCHMARKS=OFF", "-DPAMS_BUILD_CLI=OFF",
                "-DPAMS_BUILD_PYTHON=ON", "-DCMAKE_DISABLE_FIND_PACKAGE_Python=ON"], {},
     ["pams-cpp needs Python >= 3.10 (the Python extension's headers)",
      "apt-get install python3-dev", "brew install python"]),
    # A compiler that takes -std=c++20 but compiles C++17 (the flag it adds
    # last wins), as an old GCC or libc++ that lacks std::bit_cast would.
    ("C++20", LEAN + ["-DCMAKE_CXX_COMPILER={tmp}/c++17-only"], {},
     ["pams-cpp needs a C++20 compiler and library", "cannot compile them",
      "Install GCC >= 11 or Clang >= 14", "apt-get install g++", "brew install llvm"]),
]

# A library found in a version older than the one asked for: a project of
# its own that asks for Fake 2.0 where only Fake 1.0 is installed.
TOO_OLD = textwrap.dedent("""\
    cmake_minimum_required(VERSION 3.25)
    project(too_old LANGUAGES NONE)
    list(APPEND CMAKE_MODULE_PATH "{source}/cmake")
    include(PamsDependency)
    pams_find_package(Fake 2.0 DEBIAN libfake-dev BREW fake FOR "the test")
""")


def configure(args, name, cmake_args, env_extra, tmp):
    build = os.path.join(tmp, "build")
    source = args.source_dir
    if name == "too old":
        source = os.path.join(tmp, "project")
        os.makedirs(source)
        with open(os.path.join(source, "CMakeLists.txt"), "w") as f:
            f.write(TOO_OLD.format(source=args.source_dir))
        fake = os.path.join(tmp, "prefix", "lib", "cmake", "Fake")
        os.makedirs(fake)
        with open(os.path.join(fake, "FakeConfig.cmake"), "w") as f:
            f.write("set(Fake_FOUND TRUE)\n")
        with open(os.path.join(fake, "FakeConfigVersion.cmake"), "w") as f:
            f.write('set(PACKAGE_VERSION "1.0")\n'
                    'if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n'
                    '  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n'
                    'else()\n  set(PACKAGE_VERSION_COMPATIBLE TRUE)\nendif()\n')
        cmake_args = [f"-DCMAKE_PREFIX_PATH={tmp}/prefix"]
    os.makedirs(os.path.join(tmp, "empty"), exist_ok=True)
    wrapper = os.path.join(tmp, "c++17-only")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec {args.cxx} "$@" -std=c++17\n')
    os.chmod(wrapper, 0o755)
    env = dict(os.environ)
    # The build of this test's own folder must not reach the cases' builds.
    for key in ("CMAKE_CXX_COMPILER_LAUNCHER", "CXX", "CC"):
        env.pop(key, None)
    env.update({k: v.format(tmp=tmp) for k, v in env_extra.items()})
    command = [args.cmake, "-S", source, "-B", build, "-G", "Ninja", "-DPAMS_CCACHE=OFF",
               f"-DCMAKE_CXX_COMPILER={args.cxx}"]
    command += [a.format(tmp=tmp) for a in cmake_args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def run_case(args, case):
    name, cmake_args, env_extra, expected = case
    with tempfile.TemporaryDirectory(prefix="pams-configure-") as tmp:
        proc = configure(args, name, cmake_args, env_extra, tmp)
    # CMake wraps long message lines; compare with the line breaks undone.
    output = " ".join((proc.stdout + proc.stderr).split())
    problems = []
    if proc.returncode == 0:
        problems.append("the configure succeeded")
    for text in expected:
        if " ".join(text.split()) not in output:
            problems.append(f"no {text!r} in the message")
    if "Could not find a package configuration file" in output:
        problems.append("CMake's own not-found text instead of ours")
    return name, problems, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cxx", default="c++")
    args = parser.parse_args()
    cases = CASES + [("too old", [], {}, [
        "pams-cpp needs Fake >= 2.0 (the test) (found only version 1.0, which is older)",
        "apt-get install libfake-dev", "brew install fake"])]
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name, problems, output in pool.map(lambda c: run_case(args, c), cases):
            if problems:
                failed += 1
                print(f"FAIL {name}: " + "; ".join(problems))
                print("  output: " + output[-1500:])
            else:
                print(f"ok   {name}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
