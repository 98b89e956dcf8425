# Install tree and Debian package (GNUInstallDirs): the binary, its man page and shell completions generated
# by the binary from its own option definitions, the licence, README, docs and JSON schemas.
include(GNUInstallDirs)

set(_gen ${PROJECT_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${_gen}/gpuadvise.1 ${_gen}/gpuadvise.bash ${_gen}/_gpuadvise ${_gen}/gpuadvise.fish
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen}
  COMMAND sh -c "\"$1\" manpage > \"$2/gpuadvise.1\" && \"$1\" completions bash > \"$2/gpuadvise.bash\" && \"$1\" completions zsh > \"$2/_gpuadvise\" && \"$1\" completions fish > \"$2/gpuadvise.fish\"" sh $<TARGET_FILE:gpuadvise> ${_gen}
  DEPENDS gpuadvise
  COMMENT "Generating the man page and shell completions from the option definitions"
  VERBATIM)
add_custom_target(gpuadvise_generated ALL DEPENDS ${_gen}/gpuadvise.1 ${_gen}/gpuadvise.bash ${_gen}/_gpuadvise ${_gen}/gpuadvise.fish)

install(TARGETS gpuadvise RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${_gen}/gpuadvise.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${_gen}/gpuadvise.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpuadvise)
install(FILES ${_gen}/_gpuadvise DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${_gen}/gpuadvise.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES LICENSE README.md ARCHITECTURE.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY data/schema/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuadvise/schema)

set(CPACK_PACKAGE_NAME gpuadvise)
set(CPACK_PACKAGE_VENDOR "gpuadvise")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "gpuadvise maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
find_program(DPKG_SHLIBDEPS dpkg-shlibdeps)
if(DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # runtime libraries (fmt, spdlog, libstdc++) from the binary
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt9, libspdlog1.10")
endif()
set(CPACK_GENERATOR DEB)
include(CPack)
