# Code laid out in the order a run uses it (docs/performance.md): every function in its own section, and gpuadvise
# linked by lld with the functions common commands execute (cmake/code-order.txt, written by scripts/code_order.py)
# placed together at the start of its code, so a run touches fewer code pages (and the sections no run can reach
# dropped: 250 KB less code). Release builds with g++ only, without sanitizers; without ld.lld the build links as
# usual and says so.
option(GPUADVISE_CODE_ORDER "Link gpuadvise with lld in the order of cmake/code-order.txt (Release)" ON)
set(GPUADVISE_ORDER_LINK_OPTIONS "")
set(GPUADVISE_ORDER_FILE ${CMAKE_CURRENT_LIST_DIR}/code-order.txt)
if(GPUADVISE_CODE_ORDER AND CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT GPUADVISE_SANITIZE AND NOT GPUADVISE_FUZZ
   AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  find_program(GPUADVISE_LLD NAMES ld.lld)
  if(GPUADVISE_LLD)
    add_compile_options(-ffunction-sections)
    set(GPUADVISE_ORDER_LINK_OPTIONS -fuse-ld=lld "LINKER:--symbol-ordering-file=${GPUADVISE_ORDER_FILE}" "LINKER:--no-warn-symbol-ordering" "LINKER:--gc-sections")
  else()
    message(STATUS "gpuadvise: ld.lld not found; the code is linked unordered (install lld: docs/performance.md)")
  endif()
endif()
