# pams_find_package: find_package for a library pams-cpp builds with, which
# stops the configure with a message naming the package to install (Debian
# and Homebrew) when the library is missing or too old, instead of CMake's
# text about <Name>Config.cmake files. Used by every CMakeLists.txt of the
# project, at configure time; a user building from source (`pip install .`,
# `cmake -S . -B build`) reads the message.
#
#   pams_find_package(<Package> [version] [COMPONENTS ...]
#                     DEBIAN <deb package> BREW <formula> FOR <what it is for>)
#
# The arguments before DEBIAN go to find_package unchanged. A macro, not a
# function: find_package's variables (<Package>_FOUND, _VERSION, ...) must
# reach the caller's scope, as a plain find_package's would.

# The part of the message every missing package shares.
function(pams_missing_package what debian brew detail)
  message(FATAL_ERROR
    "pams-cpp needs ${what}${detail}.\n"
    "Install it:\n"
    "  Debian/Ubuntu: apt-get install ${debian}   "
    "(scripts/install-deps.sh installs every package pams-cpp builds with)\n"
    "  macOS (Homebrew): brew install ${brew}\n"
    "or, where it is installed elsewhere, point CMake at it "
    "(-DCMAKE_PREFIX_PATH=<its prefix>).")
endfunction()

macro(pams_find_package _pams_package)
  cmake_parse_arguments(_pams_fp "" "DEBIAN;BREW;FOR" "" ${ARGN})
  if(NOT _pams_fp_DEBIAN OR NOT _pams_fp_BREW OR NOT _pams_fp_FOR)
    message(FATAL_ERROR "pams_find_package(${_pams_package}) needs DEBIAN, BREW and FOR")
  endif()
  find_package(${_pams_package} ${_pams_fp_UNPARSED_ARGUMENTS} QUIET)
  if(NOT ${_pams_package}_FOUND)
    # A version found but refused (too old) is worth saying; one found in a
    # version that would do (Python without its headers) is not.
    set(_pams_fp_what "${_pams_package}")
    set(_pams_fp_detail "")
    set(_pams_fp_wanted "")
    list(LENGTH _pams_fp_UNPARSED_ARGUMENTS _pams_fp_n)
    if(_pams_fp_n GREATER 0)
      list(GET _pams_fp_UNPARSED_ARGUMENTS 0 _pams_fp_first)
      if(_pams_fp_first MATCHES "^[0-9]")
        set(_pams_fp_wanted "${_pams_fp_first}")
        string(APPEND _pams_fp_what " >= ${_pams_fp_wanted}")
      endif()
    endif()
    if(_pams_fp_wanted)
      if(${_pams_package}_VERSION AND ${_pams_package}_VERSION VERSION_LESS _pams_fp_wanted)
        set(_pams_fp_detail " (found version ${${_pams_package}_VERSION}, which is older)")
      elseif(${_pams_package}_CONSIDERED_VERSIONS)
        set(_pams_fp_detail
            " (found only version ${${_pams_package}_CONSIDERED_VERSIONS}, which is older)")
      endif()
    endif()
    pams_missing_package("${_pams_fp_what} (${_pams_fp_FOR})" "${_pams_fp_DEBIAN}"
                         "${_pams_fp_BREW}" "${_pams_fp_detail}")
  endif()
endmacro()

# pams_find_pkg_config(<prefix> <module> DEBIAN ... BREW ... FOR ...): the same
# for a library found by pkg-config (cairo), with its imported target
# PkgConfig::<prefix>.
macro(pams_find_pkg_config _pams_prefix _pams_module)
  cmake_parse_arguments(_pams_fpc "" "DEBIAN;BREW;FOR" "" ${ARGN})
  pams_find_package(PkgConfig
                    DEBIAN pkg-config BREW pkgconf FOR "finding ${_pams_module}")
  pkg_check_modules(${_pams_prefix} QUIET IMPORTED_TARGET ${_pams_module})
  if(NOT ${_pams_prefix}_FOUND)
    pams_missing_package("${_pams_module} (${_pams_fpc_FOR})" "${_pams_fpc_DEBIAN}"
                         "${_pams_fpc_BREW}" ", which pkg-config does not find")
  endif()
endmacro()
