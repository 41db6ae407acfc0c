# add_bpf_skeleton(<target> SOURCE <file.bpf.c> NAME <skeleton name> [DEPENDS <headers...>]
#                  [DEFINES <NAME[=VALUE]...>])
#
# Compiles a CO-RE BPF program with clang, links it with `bpftool gen object`
# and generates `<name>.skel.h` (written atomically), exposed through the
# INTERFACE library <target>. The build never reads the build host's kernel:
# kernel types come from the project's own CO-RE declarations.
find_program(BPF_CLANG NAMES clang REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
  set(BPF_TARGET_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(BPF_TARGET_ARCH arm64)
else()
  set(BPF_TARGET_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()

function(add_bpf_skeleton target)
  cmake_parse_arguments(ARG "" "SOURCE;NAME" "DEPENDS;DEFINES" ${ARGN})
  list(TRANSFORM ARG_DEFINES PREPEND "-D")
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  get_filename_component(source_dir "${source}" DIRECTORY)
  # One directory per target: two skeletons of one NAME (a test build's other
  # layout) do not overwrite each other.
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/bpf/${target}")
  set(raw_object "${out_dir}/${ARG_NAME}.tmp.bpf.o")
  set(object "${out_dir}/${ARG_NAME}.bpf.o")
  set(skeleton "${out_dir}/${ARG_NAME}.skel.h")
  file(MAKE_DIRECTORY "${out_dir}")

  add_custom_command(
    OUTPUT "${raw_object}"
    COMMAND "${BPF_CLANG}" -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_${BPF_TARGET_ARCH}
            -Wall -Wextra -Werror -Wno-unused-parameter ${ARG_DEFINES}
            -I "${source_dir}" -MD -MF "${raw_object}.d"
            -c "${source}" -o "${raw_object}"
    DEPENDS "${source}" ${ARG_DEPENDS}
    DEPFILE "${raw_object}.d"
    COMMENT "Compiling BPF program ${ARG_NAME}"
    VERBATIM)

  add_custom_command(
    OUTPUT "${object}" "${skeleton}"
    COMMAND "${BPFTOOL}" gen object "${object}" "${raw_object}"
    COMMAND sh -c "\"$0\" gen skeleton \"$1\" name \"$2\" > \"$3.partial\" && mv \"$3.partial\" \"$3\""
            "${BPFTOOL}" "${object}" "${ARG_NAME}" "${skeleton}"
    DEPENDS "${raw_object}"
    COMMENT "Generating BPF skeleton ${ARG_NAME}.skel.h"
    VERBATIM)

  add_custom_target(${target}_generate DEPENDS "${skeleton}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_generate)
  target_include_directories(${target} INTERFACE "${out_dir}" "${source_dir}")
endfunction()
