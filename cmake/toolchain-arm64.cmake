# Cross build for arm64 (aarch64) from another architecture: clang and lld of the build machine,
# the libraries and headers of Debian's arm64 packages in a sysroot (scripts/arm64-sysroot.sh
# makes it; scripts/cross-build.sh passes it):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-arm64.cmake -DNETIF_RX_SYSROOT=DIR ...
# The BPF object needs nothing of the target: it is compiled for the BPF target by the same
# clang, with the project's own CO-RE declarations of kernel types (bpf/vmlinux_min.h), and
# -D__TARGET_ARCH_arm64 from CMAKE_SYSTEM_PROCESSOR (cmake/BpfSkeleton.cmake).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# try_compile() re-reads this file in a project of its own: pass the sysroot on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NETIF_RX_SYSROOT)
if(NOT NETIF_RX_SYSROOT AND DEFINED ENV{NETIF_RX_SYSROOT})
  set(NETIF_RX_SYSROOT "$ENV{NETIF_RX_SYSROOT}")
endif()
if(NOT NETIF_RX_SYSROOT OR NOT EXISTS "${NETIF_RX_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "toolchain-arm64: NETIF_RX_SYSROOT='${NETIF_RX_SYSROOT}' is not an arm64 "
                      "sysroot; make one with scripts/arm64-sysroot.sh")
endif()
set(CMAKE_SYSROOT "${NETIF_RX_SYSROOT}")

set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-fuse-ld=lld")
endforeach()

# Programs from the build machine; libraries, headers and CMake packages from the sysroot only.
set(CMAKE_FIND_ROOT_PATH "${NETIF_RX_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${NETIF_RX_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${NETIF_RX_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${NETIF_RX_SYSROOT}/usr/share/pkgconfig")
