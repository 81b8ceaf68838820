#!/usr/bin/env bash
# The installed package: `cmake --install` of a pams-cpp build into a
# temporary prefix, examples/plugin configured and built against it with
# find_package(pams) and pams::pams, and the installed bin/pams running the
# example's config with the built plugin.
#
#   tests/install_test.sh --build-dir BUILD --source-dir SRC
#       [--cmake CMAKE] [--generator GEN] [--make-program PROG] [--cxx CXX]
#
# Checks: the installed tree (headers, libpams, bin/pams, the CMake package;
# no analysis headers, no sample or test plugins), that the installed headers
# are the public API only (exactly include/pams/, each compiling on its own
# against the prefix, and libpams.so exporting nothing but pams:: symbols of
# the API), that pamsTargets.cmake
# asks nothing of consumers beyond nlohmann_json, that the example finds the
# installed package (not the build tree), that bin/pams finds the installed
# libpams through its RPATH, and that the run prints its 600 step lines, uses
# MomentumFCNAgent (--agents-csv), repeats itself with the same seed and
# differs from the same config with plain FCNAgents; and that the complete
# example of docs/plugins.md builds against the package and does what the
# page says (tests/install_docs_example.py).
# Everything is written under one mktemp directory, removed at exit; the
# source tree is not touched.

set -euo pipefail

build_dir= source_dir= cmake=cmake generator=Ninja make_program= cxx=
while (($#)); do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --source-dir) source_dir=$2; shift 2 ;;
    --cmake) cmake=$2; shift 2 ;;
    --generator) generator=$2; shift 2 ;;
    --make-program) make_program=$2; shift 2 ;;
    --cxx) cxx=$2; shift 2 ;;
    *) echo "install_test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z $build_dir || -z $source_dir ]]; then
  echo "usage: install_test.sh --build-dir BUILD --source-dir SRC [...]" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pams-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
example_build=$tmp/example-build
# Only the RPATH may lead bin/pams to libpams.
unset LD_LIBRARY_PATH

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }

step "cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log"; fail "cmake --install failed"; }

step "the installed tree"
(cd "$prefix" && find . -type f -o -type l | sort | sed 's/^/   /' |
   grep -v '^   ./include/pams/.*\.h$'
 echo "   (+ $(find include/pams -name '*.h' | wc -l) headers under include/pams/)")
pams=$prefix/bin/pams
config_dir=$(dirname "$(find "$prefix" -name pamsConfig.cmake -print -quit)")
[[ -x $pams ]] || fail "bin/pams is not installed"
[[ -f $config_dir/pamsConfig.cmake ]] || fail "pamsConfig.cmake is not installed"
for f in pamsConfigVersion.cmake pamsTargets.cmake; do
  [[ -f $config_dir/$f ]] || fail "$f is not installed"
done
libdir=$(dirname "$(dirname "$config_dir")")
[[ -f $libdir/libpams.so ]] || fail "libpams.so is not in $libdir"
for h in agents/fcn_agent.h runners/class_registry.h config/settings.h \
         market/market.h random/random.h errors.h; do
  [[ -f $prefix/include/pams/$h ]] || fail "include/pams/$h is not installed"
done
[[ ! -e $prefix/include/pams/analysis ]] ||
  fail "include/pams/analysis/ (pams_analysis, not installed) was installed"
if find "$prefix" -name 'libpams_samples*' -o -name 'libpams_test_agents*' |
   grep -q .; then
  fail "a sample or test plugin was installed"
fi

step "the installed headers are include/pams/, each standalone"
(cd "$source_dir/include" && find pams -name '*.h' | sort) >"$tmp/source-headers"
(cd "$prefix/include" && find pams -name '*.h' | sort) >"$tmp/installed-headers"
cmp -s "$tmp/source-headers" "$tmp/installed-headers" ||
  { diff "$tmp/source-headers" "$tmp/installed-headers"; fail "the installed headers are not include/pams/"; }
compiler=${cxx:-c++}
while read -r h; do
  # Only the prefix and the system: a header that needs one of the engine's
  # private headers (src/) fails here.
  echo "#include \"$h\"" | "$compiler" -std=c++20 -fsyntax-only -x c++ \
      -I"$prefix/include" - 2>"$tmp/header.err" ||
    { cat "$tmp/header.err"; fail "$h does not compile on its own"; }
done <"$tmp/installed-headers"
echo "   $(wc -l <"$tmp/installed-headers") headers"

step "libpams.so exports the API only"
# Hidden visibility: worker plumbing, formatting helpers and the like are
# not exported (a few of the API's classes are named as examples).
exports=$(nm -D --defined-only -C "$libdir/libpams.so")
for private in SimulationJournal Channel PythonFloat OutputFile KeyLog RunAgentTask csv::; do
  if grep -q "pams::$private" <<<"$exports"; then
    fail "libpams.so exports pams::$private"
  fi
done
for public in "pams::Runner::run" "pams::Agent::setup" "pams::LoadPlugin"; do
  grep -q "$public" <<<"$exports" || fail "libpams.so does not export $public"
done
# (Captured first: grep -q stops reading early, and with pipefail the
# killed readelf would fail the test.)
dynamic=$(readelf -d "$libdir/libpams.so")
grep -q 'SONAME.*libpams\.so\.[0-9]' <<<"$dynamic" ||
  fail "libpams.so has no versioned SONAME"

step "pamsTargets.cmake asks consumers for nlohmann_json only"
# INTERFACE_LINK_LIBRARIES is what consumers must provide. (The per-config
# file may name the private shared fmt::fmt in IMPORTED_LINK_DEPENDENT_
# LIBRARIES: CMake uses that only for -rpath-link and skips names that are
# not targets, so consumers need no fmt; the example's build checks it.)
iface=$(grep -h 'INTERFACE_LINK_LIBRARIES' "$config_dir"/pamsTargets*.cmake || true)
if grep -E 'fmt|absl|Threads|CLI11|GTest|cairo|CAIRO|pams_analysis|\bdl\b' <<<"$iface"; then
  fail "the exported interface leaks a private dependency (line above)"
fi
grep -q 'nlohmann_json::nlohmann_json' <<<"$iface" ||
  fail "pams::pams does not carry nlohmann_json::nlohmann_json"

step "bin/pams finds the installed libpams.so"
pams_dynamic=$(readelf -d "$pams")
grep -E "RUNPATH|RPATH" <<<"$pams_dynamic" | grep "\$ORIGIN" >/dev/null ||
  fail "bin/pams has no \$ORIGIN RPATH: $(grep -E 'R(UN)?PATH' <<<"$pams_dynamic")"
resolved=$(ldd "$pams" | awk '$1 ~ /^libpams\.so/ {print $3}')
[[ $(realpath "$resolved") == $(realpath "$libdir/libpams.so") ]] ||
  fail "bin/pams loads libpams from '$resolved', not $libdir"

step "examples/plugin against the installed package"
configure=("$cmake" -S "$source_dir/examples/plugin" -B "$example_build"
           -G "$generator" -DCMAKE_BUILD_TYPE=Release
           -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
[[ -n $make_program ]] && configure+=(-DCMAKE_MAKE_PROGRAM="$make_program")
[[ -n $cxx ]] && configure+=(-DCMAKE_CXX_COMPILER="$cxx")
"${configure[@]}" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "configuring examples/plugin failed"; }
found=$(sed -n 's/^pams_DIR:PATH=//p' "$example_build/CMakeCache.txt")
[[ $(realpath "$found") == $(realpath "$config_dir") ]] ||
  fail "find_package(pams) found '$found', not the installed $config_dir"
"$cmake" --build "$example_build" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "building examples/plugin failed"; }
plugin=$example_build/libmomentum.so
[[ -f $plugin ]] || fail "the build made no libmomentum.so"
grep -q -- "$prefix/include" "$example_build/compile_commands.json" ||
  fail "the example was not compiled against the installed headers"
if grep -q -- "$source_dir/include" "$example_build/compile_commands.json"; then
  fail "the example was compiled against the source tree's headers"
fi

config=$source_dir/examples/plugin/config.json
run() {  # run NAME ARGS...: bin/pams run on config with the plugin, seed 1
  local name=$1; shift
  "$pams" run "$config" --plugin "$plugin" --seed 1 "$@" \
      >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err"; fail "pams run ($name) failed"; }
  # The step lines, without the timing lines (# ... TIME).
  grep -v '^#' "$tmp/$name.out" >"$tmp/$name.steps" || true
}

step "$pams run examples/plugin/config.json --plugin libmomentum.so --seed 1"
run momentum --agents-csv "$tmp/agents.csv"
steps=$(grep -c -E '^[0-9]+ [0-9]+ 0 Market [0-9.e+-]+ [0-9.e+-]+$' \
          "$tmp/momentum.steps" || true)
[[ $steps == 600 ]] ||
  { head "$tmp/momentum.out"; fail "expected 600 step lines, got $steps"; }
[[ $(wc -l <"$tmp/momentum.steps") == 600 ]] ||
  fail "unexpected lines in the output: $(grep -v -E '^[0-9]+ ' "$tmp/momentum.steps" | head -3)"
head -2 "$tmp/momentum.steps" | sed 's/^/   /'
echo "   ..."
tail -1 "$tmp/momentum.steps" | sed 's/^/   /'
n_momentum=$(grep -c ',MomentumFCNAgent,' "$tmp/agents.csv" || true)
n_fcn=$(grep -c ',FCNAgent,' "$tmp/agents.csv" || true)
[[ $n_momentum == 50 && $n_fcn == 50 ]] ||
  fail "agents.csv: expected 50 MomentumFCNAgent and 50 FCNAgent rows, got $n_momentum and $n_fcn"

step "the same seed gives the same run"
run again
cmp -s "$tmp/momentum.steps" "$tmp/again.steps" ||
  fail "two runs with --seed 1 differ"

step "MomentumFCNAgent changes the market (vs. the same agents as FCNAgent)"
run plain --set 'MomentumAgents.class="FCNAgent"' --agents-csv "$tmp/plain.csv"
[[ $(grep -c ',MomentumFCNAgent,' "$tmp/plain.csv" || true) == 0 ]] ||
  fail "--set MomentumAgents.class did not replace the class"
[[ $(wc -l <"$tmp/plain.steps") == 600 ]] || fail "the FCNAgent run is incomplete"
cmp -s "$tmp/momentum.steps" "$tmp/plain.steps" &&
  fail "MomentumFCNAgent gives the same prices as FCNAgent"
changed=$(diff "$tmp/momentum.steps" "$tmp/plain.steps" | grep -c '^<' || true)
echo "   $changed of 600 step lines differ"

step "docs/plugins.md's complete example against the installed package"
python3 "$source_dir/tests/install_docs_example.py" --pams "$pams" --cxx "${cxx:-c++}" \
    --include "$prefix/include" --lib-dir "$libdir" ||
  fail "the example of docs/plugins.md"

echo "OK"
