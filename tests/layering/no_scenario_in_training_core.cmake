# The scenario (workloads/scenario/) sits above the training core: nothing under training/, layers/, zoo/
# or inference/ (headers or sources) may include it, by its public path or a relative one.
# Run as: cmake -DSOURCE_DIR=<repository root> -P no_scenario_in_training_core.cmake
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "SOURCE_DIR not set")
endif()
set(_offenders "")
foreach(_part training layers zoo inference)
  file(GLOB_RECURSE _files
       "${SOURCE_DIR}/workloads/include/workloads/${_part}/*"
       "${SOURCE_DIR}/workloads/src/${_part}/*")
  foreach(_f IN LISTS _files)
    file(STRINGS "${_f}" _hits REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](workloads/scenario/|(\\.\\./)+scenario/)")
    foreach(_h IN LISTS _hits)
      file(RELATIVE_PATH _rel "${SOURCE_DIR}" "${_f}")
      string(APPEND _offenders "  ${_rel}: ${_h}\n")
    endforeach()
  endforeach()
endforeach()
if(_offenders)
  message(FATAL_ERROR "the training core includes the scenario (workloads/scenario/ is above it):\n${_offenders}")
endif()
message(STATUS "no scenario include under workloads/*/{training,layers,zoo,inference}/")
