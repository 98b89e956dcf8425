# gpuadvise_embed(OUT_CPP SYMBOL FILE): turns a data file into a C++ source holding its bytes, so the
# binary answers from any directory with no data files beside it.
set(GPUADVISE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedDataScript.cmake)
function(gpuadvise_embed out_cpp symbol file)
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out_cpp} -DSYMBOL=${symbol} -P ${GPUADVISE_EMBED_SCRIPT}
    DEPENDS ${file} ${GPUADVISE_EMBED_SCRIPT}
    COMMENT "Embedding ${file}")
endfunction()
