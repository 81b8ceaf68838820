#!/usr/bin/env python3
"""Every code example of README.md and docs/*.md, run as written, so that no
example goes stale.

The fenced blocks are read from the Markdown and run in a scratch folder per
file (README.md's blocks in one, each guide's in another), in the order they
come, against this build's CLI and the pams_cpp of .venv-py. The scratch
folder links samples/, include/, examples/ and python/ of the repository
and build/ (this build), so that the examples' paths, `build/bin/pams` and
`samples/CI2002/config.json`, work; what the examples write stays there.
It links nothing an example could rebuild or reinstall (no Makefile, no
scripts/, no venv).

* ```python: run by .venv-py's python (matplotlib on its Agg backend, the
  reference BLAS and numpy's CPU features as the Python tests have them, so
  that PAMS 0.3.0, installed there too, gives pams-cpp's numbers).
* ```sh / ```bash: run by bash -e (each command must succeed), with
  Open MPI allowed to run as root and oversubscribe (as tests/sweep_mpi_test.py);
  a block that runs mpirun is skipped where the build has no MPI module.
  Only the commands of SH_COMMANDS may run (the CLI, the compiler, the
  programs the examples build, mpirun, cmp, diff): a block that installs,
  builds the project or changes the system must carry a skip marker, and
  one that does not is refused, not run.
* ```json: a complete config (an object that has "simulation") is checked by
  `pams validate`; a fragment needs a "merge" marker (below).
* ```cpp: needs a "file" or "skip" marker (a C++ example is a file that a
  later sh block compiles, or a fragment).
* Other fences (output listings, ```text) are not examples.

A marker is an HTML comment on the lines just before a block (GitHub does
not show it), `<!-- example: WHAT -->`:

* `skip (REASON)`: not run, for REASON (needs a GPU, a cluster, root, the
  network, a long run, ...); reported with the reason.
* `continue`: run after the previous python (or sh) block of the file, as
  one program (a fragment that uses the names the previous block made).
* `with CODE`: CODE (the rest of the comment, may span lines) runs first, in
  the same program: what a fragment assumes (`config = ...`).
* `after CODE`: CODE runs after the block, in the same program: what checks
  that the block did what the text around it says.
* `file NAME`: the block is written to NAME in the scratch folder, for the
  blocks after it (a C++ source that the next sh block compiles).
* `merge PATH [at KEY]`: a JSON fragment ("key": value, ...) is merged into
  the config at PATH (repository-relative), into its object KEY (a dotted
  path; default: the top level), and the result is checked by `pams
  validate`.
* `venv DIR`: a python block runs in the venv DIR (repository-relative, e.g.
  .venv-tf) with pams_cpp of .venv-py importable; an sh block just needs
  DIR. Skipped (with the reason) when DIR's SKIP_ENV variable is 1
  (PAMS_SKIP_TENSORFLOW_TESTS for .venv-tf), as the TensorFlow tests are;
  failed when DIR is missing otherwise.

A block that fails is reported as FILE:LINE (the line of its opening fence)
with the command's output; the test fails when any did. At the end it prints
how many blocks ran and how many were skipped, with the reasons.

docs/plugins.md's complete plugin (mean_reversion.cc, its config and build
lines) is run by tests/install_docs_example.py (by the install test, against
the installed package); its blocks here carry skip markers saying so.

Usage: docs_examples_test.py --pams BIN --python PY [--build-dir DIR] [--only FILE]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)\s*$")
MARKER = re.compile(r"<!--\s*example:\s*(.*?)\s*-->", re.S)
RUNNABLE = {"python", "sh", "bash", "json", "cpp", "c++"}
# Seconds a block may run (the longest, the TensorFlow example, takes ~40 s
# on two loaded cores).
TIMEOUT = 300
# Environments a skipped venv may be named by, as the TensorFlow/JAX/PyTorch tests.
SKIP_ENV = {".venv-tf": "PAMS_SKIP_TENSORFLOW_TESTS", ".venv-jax": "PAMS_SKIP_JAX_TESTS",
            ".venv-torch": "PAMS_SKIP_TORCH_TESTS"}


class Block:
    """One fenced block: where it is, its language, its text, its markers."""

    def __init__(self, path, line, language, text, markers):
        self.path = path            # repository-relative
        self.line = line            # 1-based line of the opening fence
        self.language = {"bash": "sh", "c++": "cpp"}.get(language, language)
        self.text = text
        self.markers = markers      # [(word, argument)]

    def where(self):
        return f"{self.path}:{self.line}"

    def marker(self, word):
        for w, arg in self.markers:
            if w == word:
                return arg
        return None


def parse_marker(text, where):
    """A marker's (word, argument)."""
    m = re.match(r"(\S+)\s*(.*)", text.strip(), re.S)
    word, arg = m.group(1), m.group(2)
    if word not in ("skip", "continue", "with", "after", "file", "merge", "venv"):
        raise SystemExit(f"{where}: unknown example marker {text.strip()!r} (expected skip, "
                         f"continue, with, after, file, merge or venv; see "
                         f"tests/docs_examples_test.py)")
    if word == "skip":
        m = re.fullmatch(r"\((.+)\)", arg.strip(), re.S)
        if not m:
            raise SystemExit(f"{where}: a skip marker needs its reason in parentheses: "
                             f"<!-- example: skip (needs a GPU) -->")
        arg = " ".join(m.group(1).split())
    return word, arg.strip("\n") if word in ("with", "after") else arg.strip()


def read_blocks(path):
    """The fenced blocks of a Markdown file, with the markers just before each
    (only blank lines and markers may stand between a marker and its block)."""
    rel = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    pending = []              # markers seen since the last text line
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            indent, ticks, language = m.groups()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(ticks):
                j += 1
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                    for l in lines[i + 1:j]]
            if language in RUNNABLE:
                blocks.append(Block(rel, i + 1, language, "\n".join(body) + "\n", pending))
            elif pending:
                raise SystemExit(f"{rel}:{i + 1}: an example marker before a "
                                 f"```{language or ''} block, which is not an example")
            pending = []
            i = j + 1
            continue
        stripped = line.strip()
        if stripped.startswith("<!--") and "example:" in stripped:
            # A marker may span lines (with CODE).
            text = line
            k = i
            while "-->" not in text and k + 1 < len(lines):
                k += 1
                text += "\n" + lines[k]
            mm = MARKER.search(text)
            if not mm:
                raise SystemExit(f"{rel}:{i + 1}: an unterminated example marker")
            pending.append(parse_marker(mm.group(1), f"{rel}:{i + 1}"))
            i = k + 1
            continue
        if stripped and pending:
            raise SystemExit(f"{rel}:{i + 1}: text between an example marker and its block")
        i += 1
    if pending:
        raise SystemExit(f"{rel}: an example marker at the end of the file, before no block")
    return blocks


# What the scratch folder links: what the examples read. Nothing an example
# could rebuild or reinstall (Makefile, scripts/, the venvs).
LINKED = ("samples", "include", "examples", "python")
# The commands an sh block may run (each command of a line, after VAR=value
# assignments), besides the programs it built (./NAME).
SH_COMMANDS = {"build/bin/pams", "g++", "mpirun", "cmp", "diff"}
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
# PAMS's numerics as tests/CMakeLists.txt gives the Python tests.
REFERENCE_ENV = {
    "LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack",
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL",
}


def scratch_folder(build_dir):
    """A folder that sees what the examples read, and this build as build/."""
    folder = tempfile.mkdtemp(prefix="pams-docs-examples-")
    for name in LINKED:
        os.symlink(os.path.join(ROOT, name), os.path.join(folder, name))
    os.symlink(build_dir, os.path.join(folder, "build"))
    return folder


def sh_commands(text):
    """The commands of a shell block (first words of its commands)."""
    joined = re.sub(r"\\\n", " ", text)
    commands = []
    for line in joined.split("\n"):
        line = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
        for part in re.split(r"\|\|?|&&|;", line):
            words = [w for w in part.split() if not re.fullmatch(r"[A-Za-z_]\w*=\S*", w)]
            if words:
                commands.append(words[0])
    return commands


def merge(target, fragment):
    """fragment's keys into target: objects merged key by key (an entry the
    fragment shows in part keeps the config's other keys), the rest replaced."""
    for key, value in fragment.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merge(target[key], value)
        else:
            target[key] = value


def set_path(config, key, fragment, where):
    node = config
    for part in key.split(".") if key else []:
        if not isinstance(node, dict) or part not in node:
            raise SystemExit(f"{where}: merge: the config has no object {key!r}")
        node = node[part]
    merge(node, fragment)


class Runner:
    def __init__(self, args):
        self.args = args
        self.blocks = 0           # example blocks seen
        self.ran = 0              # blocks run (a "continue" group counts each block)
        self.programs = 0         # programs run (a group is one)
        self.files = 0            # blocks written as files for later blocks
        self.skipped = []         # (where, reason)
        self.failures = []        # (where, what)

    def run(self, block, text, folder, command, env=None):
        start = time.monotonic()
        try:
            proc = subprocess.run(command, input=text, cwd=folder, capture_output=True,
                                  text=True, timeout=TIMEOUT, env=env)
        except subprocess.TimeoutExpired:
            self.failures.append((block.where(), f"did not end within {TIMEOUT} s"))
            return
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            out = (proc.stdout + proc.stderr)[-3000:]
            self.failures.append((block.where(),
                                  f"{block.language} block failed (exit {proc.returncode}):\n"
                                  f"{out}"))
        else:
            print(f"  ok   {block.where()} ({block.language}, {seconds:.1f} s)")

    def python_env(self, block):
        env = dict(os.environ)
        env["MPLBACKEND"] = "Agg"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if not block.marker("venv"):
            env.update(REFERENCE_ENV)
        return env

    def run_file(self, path):
        blocks = read_blocks(path)
        if not blocks:
            return
        folder = scratch_folder(self.args.build_dir)
        try:
            self.run_blocks(blocks, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def run_blocks(self, blocks, folder):
        # Blocks joined by "continue" run as one program, at the last one.
        groups = []
        for block in blocks:
            if block.marker("continue") is not None:
                previous = [g for g in groups if g[0].language == block.language]
                if not previous:
                    raise SystemExit(f"{block.where()}: 'continue' but no earlier "
                                     f"{block.language} block in the file")
                previous[-1].append(block)
                groups.remove(previous[-1])
                groups.append(previous[-1])
            else:
                groups.append([block])
        # Run in the order of each group's last block (files come before
        # the blocks that use them).
        for group in sorted(groups, key=lambda g: g[-1].line):
            self.run_group(group, folder)

    def run_group(self, group, folder):
        block = group[-1]
        self.blocks += len(group)
        reason = next((b.marker("skip") for b in group if b.marker("skip")), None)
        if reason:
            self.skipped.append((block.where(), reason))
            print(f"  skip {block.where()} ({reason})")
            return
        name = block.marker("file")
        if name:
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(block.text)
            self.files += 1
            print(f"  file {block.where()} -> {name}")
            return
        failures = len(self.failures)
        skipped = len(self.skipped)
        text = ""
        for b in group:
            prelude = b.marker("with")
            if prelude:
                text += prelude + "\n"
            text += b.text
            after = b.marker("after")
            if after:
                text += after + "\n"
        self.run_kind(group, block, text, folder)
        if len(self.skipped) == skipped and len(self.failures) == failures:
            self.ran += len(group)
            self.programs += 1

    def run_kind(self, group, block, text, folder):
        if block.language == "python":
            self.run_python(block, text, folder)
        elif block.language == "sh":
            refused = [c for b in group for c in sh_commands(b.text)
                       if c not in SH_COMMANDS and not c.startswith("./")]
            if refused:
                self.failures.append((block.where(), f"runs {', '.join(sorted(set(refused)))}, "
                                      "which this test does not run: mark the block skip "
                                      "(REASON), or add the command to SH_COMMANDS if it is "
                                      "safe to run"))
                return
            if self.needs_venv(block) is False:
                return
            if "mpirun" in [c for b in group for c in sh_commands(b.text)] and not (
                    shutil.which("mpirun") and
                    os.path.exists(os.path.join(self.args.build_dir, "lib", "libpams_mpi.so"))):
                # As tests/CMakeLists.txt registers sweep.mpi only with an MPI.
                reason = "mpirun: this build has no MPI module (no MPI was found)"
                self.skipped.append((block.where(), reason))
                print(f"  skip {block.where()} ({reason})")
                return
            self.run(block, text, folder, ["bash", "-e", "-o", "pipefail", "-s"],
                     env=dict(os.environ, **MPI_ENV))
        elif block.language == "json":
            self.run_json(block, text, folder)
        else:
            self.failures.append((block.where(), f"a {block.language} block needs a marker: "
                                  "file NAME (a later block compiles it) or skip (REASON)"))

    def needs_venv(self, block):
        """None without a venv marker; True when its venv is there; False
        (skipped or failed, recorded) when it is not."""
        venv = block.marker("venv")
        if not venv:
            return None
        skip_env = SKIP_ENV.get(venv)
        if skip_env and os.environ.get(skip_env) == "1":
            self.skipped.append((block.where(), f"needs {venv}; {skip_env}=1"))
            print(f"  skip {block.where()} (needs {venv}; {skip_env}=1)")
            return False
        if os.path.exists(os.path.join(ROOT, venv, "bin", "python")):
            return True
        else:
            self.failures.append((block.where(), f"{venv} is missing"
                                  + (f" (or set {skip_env}=1)" if skip_env else "")))
        return False

    def run_python(self, block, text, folder):
        venv = block.marker("venv")
        env = self.python_env(block)
        python = self.args.python
        if self.needs_venv(block) is False:
            return
        if venv:
            python = os.path.join(ROOT, venv, "bin", "python")
            # pams_cpp of .venv-py first on the path, nothing else of it (its
            # numpy must not shadow the venv's), as tests/run_in_venv.py does.
            site = subprocess.run([self.args.python, "-c",
                                   "import os, pams_cpp; print(os.path.dirname(os.path."
                                   "dirname(pams_cpp.__file__)))"],
                                  capture_output=True, text=True, check=True).stdout.strip()
            link = os.path.join(folder, ".pams_cpp_only")
            os.makedirs(link, exist_ok=True)
            if not os.path.exists(os.path.join(link, "pams_cpp")):
                os.symlink(os.path.join(site, "pams_cpp"), os.path.join(link, "pams_cpp"))
            env["PYTHONPATH"] = link + os.pathsep + env.get("PYTHONPATH", "")
        # A file, not stdin: spawned workers import the main module by its path.
        script = os.path.join(folder, f"example_{os.path.basename(block.path)}_{block.line}.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        self.run(block, None, folder, [python, script], env=env)

    def run_json(self, block, text, folder):
        merge = block.marker("merge")
        if merge:
            target, _, key = merge.partition(" at ")
            try:
                fragment = json.loads("{" + text + "}")
            except json.JSONDecodeError as e:
                self.failures.append((block.where(), f"not a JSON fragment: {e}"))
                return
            with open(os.path.join(ROOT, target.strip()), encoding="utf-8") as f:
                config = json.load(f)
            set_path(config, key.strip(), fragment, block.where())
        else:
            try:
                config = json.loads(text)
            except json.JSONDecodeError as e:
                self.failures.append((block.where(), f"not a JSON config ({e}); a fragment "
                                      "needs <!-- example: merge PATH [at KEY] -->"))
                return
            if not isinstance(config, dict) or "simulation" not in config:
                self.failures.append((block.where(), "a JSON block that is not a config "
                                      "(no \"simulation\"): mark it merge or skip"))
                return
        path = os.path.join(folder, f"example_{block.line}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        self.run(block, None, folder, [self.args.pams, "validate", path])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True, help="the pams CLI of this build")
    p.add_argument("--python", required=True, help="the python of .venv-py")
    p.add_argument("--build-dir", default=None,
                   help="this build (default: the folder above --pams's bin/)")
    p.add_argument("--only", action="append", default=[],
                   help="only this Markdown file (repository-relative); repeatable")
    args = p.parse_args()
    args.pams = os.path.abspath(args.pams)
    args.python = os.path.abspath(args.python)
    args.build_dir = os.path.abspath(args.build_dir or
                                     os.path.dirname(os.path.dirname(args.pams)))
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs",
                                                                              "*.md")))
    if args.only:
        files = [os.path.join(ROOT, f) for f in args.only]
    runner = Runner(args)
    start = time.monotonic()
    for path in files:
        print(os.path.relpath(path, ROOT))
        runner.run_file(path)
    for where, what in runner.failures:
        print(f"\nFAILED {where}: {what}", file=sys.stderr)
    print(f"\n{runner.blocks} example blocks in {len(files)} files: {runner.ran} ran and "
          f"passed (as {runner.programs} programs), {runner.files} were written as files "
          f"that later blocks build, {len(runner.skipped)} skipped, {len(runner.failures)} "
          f"failed; {time.monotonic() - start:.0f} s")
    reasons = {}
    for where, reason in runner.skipped:
        reasons.setdefault(reason, []).append(where)
    for reason, wheres in sorted(reasons.items()):
        print(f"  skipped ({reason}): {', '.join(wheres)}")
    sys.exit(1 if runner.failures else 0)


if __name__ == "__main__":
    main()
