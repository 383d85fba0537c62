# SPDX-License-Identifier: MIT
# tools/cygtrace.cmake - cygtrace in a CMake build. In your CMakeLists.txt:
#
#   include(path/to/cygtrace/tools/cygtrace.cmake)
#   add_executable(app.elf main.c startup.c ...)
#   cygtrace_instrument(app.elf
#       DEFINES CYGTRACE_CM_CLOCK=3                 # optional: runtime settings
#       EXCLUDE_FILES startup.c drivers/fast_isr.c  # optional: not instrumented
#       EXCLUDE_FUNCTIONS SysTick_Handler crc_)     # optional: GCC matches substrings
#
# The target's C sources get -finstrument-functions (but for EXCLUDE_FILES), the runtime's
# include directories and DEFINES, -Wl,--build-id, and a static runtime library of its own,
# cygtrace_rt_<target>, built with the same compiler, CMAKE_C_FLAGS and the target's own compile
# options, without instrumentation. PORT cortex-m (the default) or linux picks the port. Your
# startup code calls cygtrace_cm_init() (cygtrace_cm.h); your linker script keeps .noinit out of
# the load segments and defines __cygtrace_build_id (see examples/firmware/sections.ld).
#
# A precompiled library (a vendor's, without -finstrument-functions; a file or a target) is
# traced through wrappers that the host tool writes from its DWARF, one call a library:
#
#   cygtrace_wrap(app.elf vendor/libdrv.a)
#   cygtrace_wrap(app.elf vendor/libdrv.a
#       FUNCTIONS drv_* spi_*       # optional: only these (shell globs); EXCLUDE: not these
#       SIGNATURES drv.sig)         # optional: C prototypes, for functions without DWARF
#
# At build time "cygtrace wrap" writes cygtrace_wrap.c and cygtrace_wrap.flags into
# CMAKE_CURRENT_BINARY_DIR/cygtrace_wrap/<library> (again when the library or the signatures
# change); the C file joins the target's sources (not instrumented), the flags its link
# (-Wl,--wrap=NAME a function), and the library its link libraries, after the wrappers.
# CYGTRACE_TOOL is the cygtrace binary (default: CYGTRACE_DIR/build/cygtrace in the source
# tree, PREFIX/bin/cygtrace once installed, else cygtrace from PATH).

if(CMAKE_VERSION VERSION_LESS 3.18) # set_source_files_properties(TARGET_DIRECTORY)
    message(FATAL_ERROR "tools/cygtrace.cmake needs CMake 3.18 or later")
endif()

# The sources: next to this file once installed (share/cygtrace/), one level up in the tree.
if(NOT CYGTRACE_DIR)
    if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/target/core/cygtrace.c")
        set(CYGTRACE_DIR "${CMAKE_CURRENT_LIST_DIR}")
    else()
        get_filename_component(CYGTRACE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
    endif()
endif()

# The runtime's sources for a port into out: those of target/sources.mk, the one list that every
# build of the runtime reads (make includes it; here its "CYGTRACE_RT_SRC_<name> := files" lines
# are read: core's and the port's, relative to CYGTRACE_DIR). Empty for a port it does not have.
function(cygtrace_rt_sources port out)
    file(READ "${CYGTRACE_DIR}/target/sources.mk" text)
    string(REPLACE "\\\n" " " text "${text}") # continuation lines
    string(REGEX MATCHALL "CYGTRACE_RT_SRC_[a-z-]+ :=[^\n]*" lines "${text}")
    set(src)
    set(have_port FALSE)
    foreach(line IN LISTS lines)
        string(REGEX MATCH "^CYGTRACE_RT_SRC_([a-z-]+) := (.*)$" line "${line}")
        set(name "${CMAKE_MATCH_1}")
        separate_arguments(files UNIX_COMMAND "${CMAKE_MATCH_2}")
        if(name STREQUAL port)
            set(have_port TRUE)
        endif()
        if(name STREQUAL "core" OR name STREQUAL port)
            foreach(f IN LISTS files)
                list(APPEND src "${CYGTRACE_DIR}/${f}")
            endforeach()
        endif()
    endforeach()
    if(NOT have_port)
        set(src)
    endif()
    set(${out} ${src} PARENT_SCOPE)
endfunction()

function(cygtrace_instrument target)
    cmake_parse_arguments(PARSE_ARGV 1 CYG "" "PORT" "DEFINES;EXCLUDE_FILES;EXCLUDE_FUNCTIONS")
    if(CYG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "cygtrace_instrument: unknown arguments: ${CYG_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT CYG_PORT)
        set(CYG_PORT cortex-m)
    endif()
    cygtrace_rt_sources(${CYG_PORT} rt_src)
    if(NOT rt_src)
        message(FATAL_ERROR "cygtrace_instrument: PORT must be cortex-m or linux, not ${CYG_PORT}")
    endif()
    set(includes "${CYGTRACE_DIR}/target/core" "${CYGTRACE_DIR}/target/${CYG_PORT}"
                 "${CYGTRACE_DIR}/common")

    # The runtime: the target's own compile options first (its CPU flags), ours last, so that
    # -fno-instrument-functions wins over a -finstrument-functions among them. The stream
    # drain, COBS and the RTT sink are in it: a firmware that never calls cygtrace_drain()
    # links none of it (-ffunction-sections here, --gc-sections in the firmware's link).
    set(rt cygtrace_rt_${target})
    add_library(${rt} STATIC ${rt_src})
    target_include_directories(${rt} PUBLIC ${includes})
    target_compile_definitions(${rt} PUBLIC ${CYG_DEFINES})
    target_compile_options(${rt} PRIVATE
        "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>" -std=gnu11 -Os -ffunction-sections
        -fdata-sections -fno-instrument-functions)
    if(CYG_PORT STREQUAL "linux")
        find_package(Threads REQUIRED)
        target_link_libraries(${rt} PUBLIC Threads::Threads)
    endif()

    set(instr -finstrument-functions)
    if(CYG_EXCLUDE_FUNCTIONS)
        list(JOIN CYG_EXCLUDE_FUNCTIONS "," fns)
        list(APPEND instr "-finstrument-functions-exclude-function-list=${fns}")
    endif()
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:C>:${instr}>")
    target_link_libraries(${target} PRIVATE ${rt})
    target_link_options(${target} PRIVATE -Wl,--build-id)
    if(CYG_EXCLUDE_FILES)
        # Source options come after the target's: this -fno-instrument-functions wins.
        set_source_files_properties(${CYG_EXCLUDE_FILES} TARGET_DIRECTORY ${target}
            PROPERTIES COMPILE_OPTIONS -fno-instrument-functions)
    endif()
endfunction()

function(cygtrace_wrap target library)
    cmake_parse_arguments(PARSE_ARGV 2 CYG "" "SIGNATURES" "FUNCTIONS;EXCLUDE")
    if(CYG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "cygtrace_wrap: unknown arguments: ${CYG_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT CYGTRACE_TOOL)
        find_program(CYGTRACE_TOOL cygtrace
            HINTS "${CYGTRACE_DIR}/build" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../../bin")
        if(NOT CYGTRACE_TOOL)
            message(FATAL_ERROR "cygtrace_wrap: no cygtrace binary; set CYGTRACE_TOOL")
        endif()
    endif()
    # The library: a target of this build (its file, once built) or a file.
    if(TARGET ${library})
        set(lib_file "$<TARGET_FILE:${library}>")
        set(lib_name ${library})
        set(lib_dep ${library})
    else()
        get_filename_component(lib_file "${library}" ABSOLUTE)
        get_filename_component(lib_name "${library}" NAME_WE)
        set(lib_dep "${lib_file}")
    endif()
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/cygtrace_wrap/${lib_name}")
    set(options)
    foreach(p ${CYG_FUNCTIONS})
        list(APPEND options "--functions=${p}")
    endforeach()
    foreach(p ${CYG_EXCLUDE})
        list(APPEND options "--exclude=${p}")
    endforeach()
    set(sig_dep)
    if(CYG_SIGNATURES)
        get_filename_component(sig "${CYG_SIGNATURES}" ABSOLUTE)
        list(APPEND options "--signatures=${sig}")
        set(sig_dep "${sig}")
    endif()
    add_custom_command(OUTPUT "${dir}/cygtrace_wrap.c" "${dir}/cygtrace_wrap.flags"
        COMMAND "${CYGTRACE_TOOL}" wrap -o "${dir}" ${options} "${lib_file}"
        DEPENDS ${lib_dep} ${sig_dep} "${CYGTRACE_TOOL}"
        COMMENT "cygtrace wrap ${lib_name}" VERBATIM)
    target_sources(${target} PRIVATE "${dir}/cygtrace_wrap.c")
    # Source options come after the target's: this -fno-instrument-functions wins.
    set_source_files_properties("${dir}/cygtrace_wrap.c" TARGET_DIRECTORY ${target}
        PROPERTIES COMPILE_OPTIONS -fno-instrument-functions)
    target_include_directories(${target} PRIVATE "${CYGTRACE_DIR}/target/core"
                                                 "${CYGTRACE_DIR}/common")
    target_link_options(${target} PRIVATE "@${dir}/cygtrace_wrap.flags")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${dir}/cygtrace_wrap.flags")
    if(TARGET ${library})
        target_link_libraries(${target} PRIVATE ${library})
    else()
        target_link_libraries(${target} PRIVATE "${lib_file}")
    endif()
endfunction()
