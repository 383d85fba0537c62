# SPDX-License-Identifier: MIT
# cygtrace-config.cmake - find_package(cygtrace) for an installed cygtrace (make install, or the
# Debian package), from PREFIX/lib/cmake/cygtrace/:
#
#   find_package(cygtrace REQUIRED)      # CMAKE_PREFIX_PATH=PREFIX when PREFIX is not a default
#   add_executable(app.elf main.c ...)
#   cygtrace_instrument(app.elf ...)     # tools/cygtrace.cmake's functions, as documented there:
#   cygtrace_wrap(app.elf libdrv.a)      # the runtime built from PREFIX/share/cygtrace
#
# or link a prebuilt runtime, built with the default settings:
#
#   target_link_libraries(app PRIVATE cygtrace::static)     # Linux, libcygtrace.a (+ Threads)
#   target_link_libraries(app PRIVATE cygtrace::shared)     # Linux, libcygtrace.so
#   target_link_libraries(app.elf PRIVATE cygtrace::cortex-m3)  # also -m0, -m4f, -m7, -m33
#
# Sets CYGTRACE_DIR (PREFIX/share/cygtrace), CYGTRACE_TOOL (PREFIX/bin/cygtrace, unless set),
# CYGTRACE_INCLUDE_DIR (PREFIX/include/cygtrace) and CYGTRACE_CORES (the prebuilt cores).

get_filename_component(_cygtrace_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(CYGTRACE_DIR "${_cygtrace_prefix}/share/cygtrace")
set(CYGTRACE_INCLUDE_DIR "${_cygtrace_prefix}/include/cygtrace")
if(NOT CYGTRACE_TOOL)
    set(CYGTRACE_TOOL "${_cygtrace_prefix}/bin/cygtrace")
endif()
include("${CYGTRACE_DIR}/cygtrace.cmake")

# The Linux runtime: only for a build that targets Linux (a firmware's has no Threads).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT TARGET cygtrace::static)
    include(CMakeFindDependencyMacro)
    find_dependency(Threads)
    add_library(cygtrace::static STATIC IMPORTED)
    set_target_properties(cygtrace::static PROPERTIES
        IMPORTED_LOCATION "${_cygtrace_prefix}/lib/libcygtrace.a"
        INTERFACE_INCLUDE_DIRECTORIES "${CYGTRACE_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES Threads::Threads)
    add_library(cygtrace::shared SHARED IMPORTED)
    set_target_properties(cygtrace::shared PROPERTIES
        IMPORTED_LOCATION "${_cygtrace_prefix}/lib/libcygtrace.so"
        IMPORTED_SONAME libcygtrace.so
        INTERFACE_INCLUDE_DIRECTORIES "${CYGTRACE_INCLUDE_DIR}")
endif()

# The Cortex-M runtimes (PREFIX/lib/cygtrace/CORE/libcygtrace.a): built with the arm-none-eabi
# compiler's default flags for the core, -Os, the default settings (cygtrace_config.h,
# cygtrace_cm.h); their headers are CYGTRACE_INCLUDE_DIR's.
set(CYGTRACE_CORES)
foreach(_cygtrace_core cortex-m0 cortex-m3 cortex-m4f cortex-m7 cortex-m33)
    set(_cygtrace_lib "${_cygtrace_prefix}/lib/cygtrace/${_cygtrace_core}/libcygtrace.a")
    if(EXISTS "${_cygtrace_lib}")
        list(APPEND CYGTRACE_CORES ${_cygtrace_core})
        if(NOT TARGET cygtrace::${_cygtrace_core})
            add_library(cygtrace::${_cygtrace_core} STATIC IMPORTED)
            set_target_properties(cygtrace::${_cygtrace_core} PROPERTIES
                IMPORTED_LOCATION "${_cygtrace_lib}"
                INTERFACE_INCLUDE_DIRECTORIES "${CYGTRACE_INCLUDE_DIR}"
                INTERFACE_LINK_OPTIONS -Wl,--build-id)
        endif()
    endif()
endforeach()
unset(_cygtrace_core)
unset(_cygtrace_lib)
unset(_cygtrace_prefix)
