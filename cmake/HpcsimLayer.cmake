# hpcsim_layer(NAME <target> DEPS <targets...>)
# A layer is one top-level folder: headers in include/<folder>/, sources in src/.
# Only its own include/ is exported, so a layer can include exactly the layers it links.
# The top layers are not libraries: cli/ (the hpcsim command) and python/ (the Python module hpcsim) each
# link hpcsim_driver only, and nothing links them; tests/layering/ checks what the include paths cannot.
function(hpcsim_layer)
  cmake_parse_arguments(L "" "NAME" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp")
  if(NOT _srcs)  # a layer still being written: keep the target so the layers above can link it
    set(_srcs "${CMAKE_CURRENT_BINARY_DIR}/${L_NAME}_empty.cpp")
    file(WRITE "${_srcs}" "// ${L_NAME} has no sources yet\n")
  endif()
  add_library(${L_NAME} STATIC ${_srcs})
  target_include_directories(${L_NAME} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include"
                                       PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
  target_link_libraries(${L_NAME} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS})
  target_compile_options(${L_NAME} PRIVATE -Wall -Wextra -Wpedantic)
  # Position-independent, so that the Python module (a shared object) can link the layers as the CLI does
  # (thread_local and PC-relative data references of executable code cannot go into one);
  # -fno-semantic-interposition keeps the calls between a layer's functions inlined as in executable code.
  if(HPCSIM_WITH_PYTHON)
    set_target_properties(${L_NAME} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${L_NAME} PRIVATE -fno-semantic-interposition)
  endif()
endfunction()
