# The build's identity for --version and build_info, fixed at configure time.
#
# netif_rx_build_identity(SOURCE_DIR) sets, in the caller's scope, NETIF_RX_REVISION,
# NETIF_RX_BRANCH, NETIF_RX_BUILD_DATE, NETIF_RX_BUILD_USER, NETIF_RX_TOOLCHAIN, NETIF_RX_OS and
# NETIF_RX_ARCH. Each one already set (e.g. -DNETIF_RX_REVISION=... for a build outside a git
# checkout) is kept. The build date honours SOURCE_DATE_EPOCH (string(TIMESTAMP) reads it), so a
# reproducible build sets SOURCE_DATE_EPOCH and NETIF_RX_BUILD_USER. Works in script mode (-P)
# too, given CMAKE_CXX_COMPILER_ID/VERSION and CMAKE_SYSTEM_NAME/PROCESSOR, for its test.

function(_netif_rx_git out_var source_dir)
  execute_process(COMMAND git ${ARGN} WORKING_DIRECTORY "${source_dir}"
                  OUTPUT_VARIABLE value OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT value)
    set(value "unknown")
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

function(netif_rx_build_identity source_dir)
  if(NOT NETIF_RX_REVISION)
    _netif_rx_git(NETIF_RX_REVISION "${source_dir}" rev-parse HEAD)
  endif()
  if(NOT NETIF_RX_BRANCH)
    _netif_rx_git(NETIF_RX_BRANCH "${source_dir}" rev-parse --abbrev-ref HEAD)
  endif()
  if(NOT NETIF_RX_BUILD_DATE)
    # The format of Prometheus binaries' build date.
    string(TIMESTAMP NETIF_RX_BUILD_DATE "%Y%m%d-%H:%M:%S" UTC)
  endif()
  if(NOT NETIF_RX_BUILD_USER)
    cmake_host_system_information(RESULT host QUERY HOSTNAME)
    set(user "$ENV{USER}")
    if(NOT user)
      execute_process(COMMAND id -un OUTPUT_VARIABLE user OUTPUT_STRIP_TRAILING_WHITESPACE
                      ERROR_QUIET)
    endif()
    if(NOT user)
      set(user "unknown")
    endif()
    set(NETIF_RX_BUILD_USER "${user}@${host}")
  endif()
  # The compiler as the toolchain, like Go's goversion label: gcc-12.2.0, clang-16.0.6.
  if(NOT NETIF_RX_TOOLCHAIN)
    string(TOLOWER "${CMAKE_CXX_COMPILER_ID}" compiler)
    if(compiler STREQUAL "gnu")
      set(compiler "gcc")
    endif()
    set(NETIF_RX_TOOLCHAIN "${compiler}-${CMAKE_CXX_COMPILER_VERSION}")
  endif()
  # The platform in Go's spelling (linux/amd64), as the other exporters of a fleet report it.
  string(TOLOWER "${CMAKE_SYSTEM_NAME}" os)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" arch)
  if(arch MATCHES "^(x86_64|amd64)$")
    set(arch "amd64")
  elseif(arch MATCHES "^(aarch64|arm64)$")
    set(arch "arm64")
  elseif(arch MATCHES "^i[3-6]86$")
    set(arch "386")
  endif()
  foreach(var NETIF_RX_REVISION NETIF_RX_BRANCH NETIF_RX_BUILD_DATE NETIF_RX_BUILD_USER
              NETIF_RX_TOOLCHAIN)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
  set(NETIF_RX_OS "${os}" PARENT_SCOPE)
  set(NETIF_RX_ARCH "${arch}" PARENT_SCOPE)
endfunction()
