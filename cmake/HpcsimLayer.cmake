# hpcsim_layer(NAME <target> DEPS <targets...>)
# A layer is one top-level folder: headers in include/<folder>/, sources in src/.
# Only its own include/ is exported, so a layer can include exactly the layers it links.
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
endfunction()
