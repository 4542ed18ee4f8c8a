# Warnings apply to the project's own targets only (vp_target_defaults), so
# third-party headers pulled in as SYSTEM do not drown the build.
add_library(vp_warnings INTERFACE)
target_compile_options(vp_warnings INTERFACE -Wall -Wextra -Wpedantic $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
  -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference)
if(VP_WERROR)
  target_compile_options(vp_warnings INTERFACE -Werror)
endif()

if(VP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

function(vp_target_defaults target)
  target_link_libraries(${target} PRIVATE vp_warnings)
  # The Python module is a shared object that links the static libraries:
  # they are compiled position independent, without semantic interposition
  # so calls inside a library stay direct as in an executable.
  get_target_property(type ${target} TYPE)
  if(VP_PYTHON_MODULE AND type STREQUAL "STATIC_LIBRARY")
    set_property(TARGET ${target} PROPERTY POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${target} PRIVATE -fno-semantic-interposition)
  endif()
endfunction()
