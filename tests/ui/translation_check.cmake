# CTest script: fails when the zh_CN catalogue lacks a translation. It runs lupdate over ui/ and app/
# (and the RunConfig schema's table, whose help lines the run panel shows)
# on a temporary copy of resources/translations/ampscope_zh_CN.ts (the source tree is not touched), so a
# new tr() string that nobody translated shows up as "new" and as type="unfinished".
# Inputs: LUPDATE, SOURCE_DIR, TS_FILE, WORK_DIR.
foreach(var LUPDATE SOURCE_DIR TS_FILE WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "translation_check.cmake: ${var} is not set")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(copy "${WORK_DIR}/ampscope_zh_CN.ts")
file(COPY_FILE "${TS_FILE}" "${copy}")
execute_process(
  COMMAND "${LUPDATE}" -no-obsolete -locations none -target-language zh_CN
          "${SOURCE_DIR}/ui" "${SOURCE_DIR}/app"
          "${SOURCE_DIR}/engine/src/data/config_schema.cpp" -ts "${copy}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "Found ([0-9]+) source text\\(s\\) \\(([0-9]+) new and ([0-9]+) already existing\\)")
  message(FATAL_ERROR "cannot read lupdate's summary:\n${out}")
endif()
set(total ${CMAKE_MATCH_1})
set(new ${CMAKE_MATCH_2})

file(READ "${copy}" ts)
string(REGEX MATCHALL "type=\"unfinished\"" unfinished "${ts}")
list(LENGTH unfinished unfinished_count)
string(REGEX MATCHALL "<translation>[ \t\r\n]*</translation>" empty "${ts}")
list(LENGTH empty empty_count)

# Name the first few offenders so the fix is obvious.
string(REGEX MATCHALL "<source>[^<]*</source>[ \t\r\n]*(<comment>[^<]*</comment>[ \t\r\n]*)?<translation type=\"unfinished\"" offenders "${ts}")
list(SUBLIST offenders 0 10 first)
string(REPLACE ";" "\n" first "${first}")

message(STATUS "zh_CN: ${total} source texts, ${new} new, ${unfinished_count} unfinished, ${empty_count} empty")
if(new GREATER 0 OR unfinished_count GREATER 0 OR empty_count GREATER 0)
  message(FATAL_ERROR "The zh_CN translation is incomplete: ${new} string(s) missing from "
                      "resources/translations/ampscope_zh_CN.ts, ${unfinished_count} unfinished, ${empty_count} empty. "
                      "Run lupdate (see resources/CMakeLists.txt) and translate them. First ones:\n${first}")
endif()
