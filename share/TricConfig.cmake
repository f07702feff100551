# The tric package for CMake: `find_package(Tric)` once tric is installed
# (CMAKE_PREFIX_PATH naming its prefix if that is not a standard one).
#
#   tric::tric            the C library (tric.h; compile and launch at run time)
#   TRIC_EXECUTABLE       the tric command
#   tric_add_kernels(TARGET SOURCES add.py ... [ARCHS sm_80 sm_90a] [FLAGS -k K -s SIG ...])
#       compiles each kernel file ahead of time to <build dir>/tric/<name>.tric.{c,h}
#       (`tric FILE --emit c`: its "# kernel:" / "# signature:" lines, or FLAGS),
#       adds the C to TARGET with that directory on its include path, and links
#       what the C needs (dl, pthread; libcuda.so.1 is opened at run time).
get_filename_component(_tric_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

find_program(TRIC_EXECUTABLE tric HINTS "${_tric_prefix}/bin" NO_DEFAULT_PATH)
find_program(TRIC_EXECUTABLE tric)
find_package(Threads REQUIRED)

if(NOT TARGET tric::tric)
  add_library(tric::tric SHARED IMPORTED)
  set_target_properties(tric::tric PROPERTIES
    IMPORTED_LOCATION "${_tric_prefix}/lib/libtric.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_tric_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS};m;Threads::Threads")
endif()

function(tric_add_kernels target)
  cmake_parse_arguments(TRIC "" "" "SOURCES;ARCHS;FLAGS" ${ARGN})
  if(NOT TRIC_ARCHS)
    set(TRIC_ARCHS sm_80 sm_90a)
  endif()
  set(arch_flags)
  foreach(arch IN LISTS TRIC_ARCHS)
    list(APPEND arch_flags --arch ${arch})
  endforeach()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tric")
  foreach(src IN LISTS TRIC_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(name "${src}" NAME_WE)
    set(out "${dir}/${name}.tric")
    add_custom_command(
      OUTPUT "${out}.c" "${out}.h"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
      COMMAND "${TRIC_EXECUTABLE}" "${abs}" --emit c ${arch_flags} ${TRIC_FLAGS} -o "${out}"
      DEPENDS "${abs}"
      COMMENT "tric: ${src} -> ${name}.tric.c"
      VERBATIM)
    target_sources(${target} PRIVATE "${out}.c" "${out}.h")
  endforeach()
  target_include_directories(${target} PRIVATE "${dir}")
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
endfunction()
