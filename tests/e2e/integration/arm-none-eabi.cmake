# SPDX-License-Identifier: GPL-3.0-or-later
# arm-none-eabi.cmake - a CMake toolchain file for bare-metal Cortex-M with arm-none-eabi-gcc.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No startup code or linker script for the compiler check's test program: a library will do.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
