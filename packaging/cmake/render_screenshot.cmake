# Renders one screenshot of AmpScope for the package (run with cmake -P at install/packaging time).
#   -DAPP=path/to/ampscope  -DOUT=file.png  -DSIZE=WxH  [-DARGS=a,b,c]  extra ampscope arguments
#   [-DAPP_ENV=VAR=value,...]  environment of the app (locale of the screenshot)
#   -DPLACEHOLDER=file.svg  -DRSVG_CONVERT=path       fallback when the app cannot render headlessly
# The app renders on Qt's offscreen platform: no display is needed. When the app has no --screenshot
# option (or it fails), the placeholder SVG is rasterised instead and a warning says so, so a package
# never ships a placeholder silently.
cmake_minimum_required(VERSION 3.21)

foreach(var APP OUT SIZE PLACEHOLDER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "render_screenshot.cmake: -D${var}=... is required")
  endif()
endforeach()

get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
file(REMOVE "${OUT}")
string(REPLACE "," ";" extra_args "${ARGS}")
string(REPLACE "," ";" extra_env "${APP_ENV}")
# A settings folder of its own: the picture must not depend on (or change) the packager's saved layout.
get_filename_component(config_home "${PLACEHOLDER}" DIRECTORY)
set(config_home "${config_home}/screenshot-config")
file(REMOVE_RECURSE "${config_home}")
set(app_env QT_QPA_PLATFORM=offscreen "XDG_CONFIG_HOME=${config_home}" ${extra_env})

# An app without the option would ignore it and open its window forever; ask --help first, with a timeout.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${app_env} "${APP}" --help
                OUTPUT_VARIABLE help_text ERROR_VARIABLE help_err RESULT_VARIABLE help_rc TIMEOUT 30)
set(why "")
set(help_all "${help_text}${help_err}")
# Extra options this ampscope does not know (an older build): a screenshot of the plain window is still
# better than a placeholder, so drop them and say so.
foreach(arg IN LISTS extra_args)
  if(arg MATCHES "^--[a-z-]+$" AND NOT help_all MATCHES "${arg}")
    message(WARNING "'${APP} --help' does not list ${arg}: rendering ${OUT} without '${ARGS}'")
    set(extra_args "")
    break()
  endif()
endforeach()
if(NOT help_all MATCHES "--screenshot")
  set(why "'${APP} --help' does not list --screenshot (rc ${help_rc})")
else()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${app_env}
                          "${APP}" ${extra_args} --screenshot "${OUT}" --size "${SIZE}"
                  RESULT_VARIABLE shot_rc OUTPUT_VARIABLE shot_out ERROR_VARIABLE shot_err TIMEOUT 300)
  if(NOT shot_rc EQUAL 0)
    set(why "'ampscope --screenshot' exited with ${shot_rc}: ${shot_err}")
  elseif(NOT EXISTS "${OUT}")
    set(why "'ampscope --screenshot' wrote no file")
  else()
    file(SIZE "${OUT}" out_size)
    file(READ "${OUT}" magic LIMIT 8 HEX)
    if(out_size EQUAL 0 OR NOT magic STREQUAL "89504e470d0a1a0a")
      set(why "'ampscope --screenshot' wrote ${out_size} bytes that are not a PNG")
    else()
      message(STATUS "Screenshot ${OUT} rendered by ampscope (${out_size} bytes)")
    endif()
  endif()
endif()

file(REMOVE_RECURSE "${config_home}")
if(why STREQUAL "")
  return()
endif()
if(NOT RSVG_CONVERT)
  message(FATAL_ERROR "No screenshot: ${why}; and rsvg-convert for the placeholder is missing")
endif()
string(REPLACE "x" ";" wh "${SIZE}")
list(GET wh 0 width)
list(GET wh 1 height)
execute_process(COMMAND "${RSVG_CONVERT}" --width ${width} --height ${height} --format png
                        --output "${OUT}" "${PLACEHOLDER}"
                RESULT_VARIABLE rsvg_rc)
if(NOT rsvg_rc EQUAL 0)
  message(FATAL_ERROR "rsvg-convert failed (${rsvg_rc}) on ${PLACEHOLDER}")
endif()
message(WARNING "PLACEHOLDER screenshot packaged as ${OUT}: ${why}")
