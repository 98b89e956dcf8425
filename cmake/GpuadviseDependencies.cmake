# Every dependency comes from a Debian package; no downloads at configure or build time.
macro(gpuadvise_require pkg debian_pkg)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "gpuadvise needs ${pkg}: install the Debian package '${debian_pkg}' "
                        "(apt-get install ${debian_pkg}), or run scripts/setup.sh")
  endif()
endmacro()

gpuadvise_require(fmt libfmt-dev)
gpuadvise_require(nlohmann_json nlohmann-json3-dev)
gpuadvise_require(CLI11 libcli11-dev)
gpuadvise_require(spdlog libspdlog-dev)
if(GPUADVISE_BUILD_TESTS)
  gpuadvise_require(Catch2 catch2)
endif()
