# Checks cmake/BuildIdentity.cmake in script mode:
#   cmake -DSOURCE_DIR=<repo> -P build_identity_test.cmake
# A fixed SOURCE_DATE_EPOCH gives a fixed build date (reproducible builds); values given from
# outside win; the toolchain and platform read like Go's goversion and GOOS/GOARCH.
set(CMAKE_CXX_COMPILER_ID GNU)
set(CMAKE_CXX_COMPILER_VERSION 12.2.0)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
include("${SOURCE_DIR}/cmake/BuildIdentity.cmake")

function(expect var expected)
  if(NOT "${${var}}" STREQUAL "${expected}")
    message(FATAL_ERROR "${var} is '${${var}}', expected '${expected}'")
  endif()
  message(STATUS "ok: ${var} = ${${var}}")
endfunction()

set(ENV{SOURCE_DATE_EPOCH} 1700000000)
netif_rx_build_identity("${SOURCE_DIR}")
expect(NETIF_RX_BUILD_DATE "20231114-22:13:20")
expect(NETIF_RX_TOOLCHAIN "gcc-12.2.0")
expect(NETIF_RX_OS "linux")
expect(NETIF_RX_ARCH "amd64")
if(NOT NETIF_RX_REVISION OR NOT NETIF_RX_BRANCH OR NOT NETIF_RX_BUILD_USER MATCHES "@")
  message(FATAL_ERROR "revision '${NETIF_RX_REVISION}', branch '${NETIF_RX_BRANCH}', "
                      "user '${NETIF_RX_BUILD_USER}': one is empty")
endif()

set(NETIF_RX_REVISION 0123456789abcdef0123456789abcdef01234567)
set(NETIF_RX_BRANCH release-1.0)
set(NETIF_RX_BUILD_USER builder@reproducible)
unset(NETIF_RX_TOOLCHAIN)
set(CMAKE_CXX_COMPILER_ID Clang)
set(CMAKE_CXX_COMPILER_VERSION 16.0.6)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
netif_rx_build_identity("${SOURCE_DIR}")
expect(NETIF_RX_REVISION 0123456789abcdef0123456789abcdef01234567)
expect(NETIF_RX_BRANCH release-1.0)
expect(NETIF_RX_BUILD_USER builder@reproducible)
expect(NETIF_RX_TOOLCHAIN "clang-16.0.6")
expect(NETIF_RX_ARCH "arm64")
