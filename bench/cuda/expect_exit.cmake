# cmake -DEXE=... -DARGS=a;b -DEXPECT_RC=n -DSTREAM=stdout|stderr -DEXPECT_REGEX=re -P expect_exit.cmake
# Runs EXE and passes only if both the exit status and the message are right; CTest alone checks one or the
# other. A failing run must also print no CSV to stdout.
execute_process(COMMAND "${EXE}" ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit status: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got ${rc}")
endif()
if(STREAM STREQUAL "stdout")
  set(text "${out}")
else()
  set(text "${err}")
endif()
if(NOT text MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "${STREAM} does not match '${EXPECT_REGEX}'")
endif()
if(NOT EXPECT_RC EQUAL 0 AND NOT out STREQUAL "")
  message(FATAL_ERROR "a failing run printed to stdout")
endif()
