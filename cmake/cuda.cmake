# CUDA in three layers, each compiled whenever what it needs is found, so none of them can rot:
#  1. the CUDA runtime (device query, event timers): CUDAToolkit found -> MIRROR_HAVE_CUDART;
#  2. NCCL (the nccl communicator): nccl.h and libnccl found -> compiled; registered and linked
#     only with layer 3 (without CUDA tensors it has nothing to reduce);
#  3. a LibTorch built with CUDA (replicas on GPUs, streams, memory limits) -> MIRROR_HAVE_CUDA_TORCH.
# MIRROR_CUDA: AUTO (3 when the LibTorch has CUDA), ON (3 or a configure error), OFF (none).

set(MIRROR_HAVE_CUDA_TORCH OFF)
set(MIRROR_HAVE_CUDART OFF)
set(MIRROR_HAVE_NCCL OFF)

if(NOT MIRROR_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "MIRROR_CUDA must be AUTO, ON or OFF, not '${MIRROR_CUDA}'")
endif()

if(NOT MIRROR_CUDA STREQUAL "OFF")
  if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
    set(MIRROR_HAVE_CUDA_TORCH ON)
  elseif(MIRROR_CUDA STREQUAL "ON")
    message(FATAL_ERROR "MIRROR_CUDA=ON, but the LibTorch found (${Torch_DIR}) was built without CUDA. "
                        "Point CMAKE_PREFIX_PATH at a CUDA LibTorch (README: Building against a CUDA LibTorch).")
  endif()

  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(MIRROR_HAVE_CUDART ON)
  elseif(MIRROR_HAVE_CUDA_TORCH)
    message(FATAL_ERROR "The LibTorch found has CUDA but the CUDA toolkit was not found; set CUDAToolkit_ROOT")
  endif()

  # NCCL: NCCL_ROOT, the toolkit's folders, or pip's nvidia-nccl-* package beside a pip torch.
  file(GLOB _mirror_pip_nccl "${TORCH_INSTALL_PREFIX}/../nvidia/nccl" "${TORCH_INSTALL_PREFIX}/../nvidia/cu*")
  set(_mirror_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${_mirror_pip_nccl} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_mirror_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_mirror_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64)
  if(MIRROR_HAVE_CUDART AND NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(MIRROR_HAVE_NCCL ON)
  endif()
endif()

# Our own kernels (the fused optimizer update) and CUDA graphs, with a CUDA LibTorch and nvcc.
# The GPU architectures are LibTorch's list (TORCH_CUDA_ARCH_LIST, "9.0" -> 90) unless set.
set(MIRROR_HAVE_CUDA_KERNELS OFF)
if(MIRROR_HAVE_CUDA_TORCH)
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    if(MIRROR_CUDA STREQUAL "ON")
      message(FATAL_ERROR "MIRROR_CUDA=ON needs nvcc for our kernels and CUDA graphs; set CMAKE_CUDA_COMPILER")
    endif()
    message(WARNING "No CUDA compiler (nvcc): the fused GPU update and CUDA graphs are left out; GPU updates run "
                    "as LibTorch operations. Set CMAKE_CUDA_COMPILER to build them.")
  endif()
endif()
if(MIRROR_HAVE_CUDA_TORCH AND CMAKE_CUDA_COMPILER)
  set(MIRROR_HAVE_CUDA_KERNELS ON)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(_mirror_archs "")
    string(REPLACE " " ";" _mirror_torch_archs "${TORCH_CUDA_ARCH_LIST}")
    foreach(a IN LISTS _mirror_torch_archs)
      string(REGEX REPLACE "\\+PTX$" "" a "${a}")
      string(REPLACE "." "" a "${a}")
      if(a MATCHES "^[0-9]+[a-z]?$")
        list(APPEND _mirror_archs ${a})
      endif()
    endforeach()
    if(NOT _mirror_archs)
      set(_mirror_archs 90)
    endif()
    set(CMAKE_CUDA_ARCHITECTURES ${_mirror_archs})
  endif()
  enable_language(CUDA)
  message(STATUS "Mirror Workbench CUDA kernels for architectures ${CMAKE_CUDA_ARCHITECTURES} (nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
endif()

message(STATUS "Mirror Workbench CUDA: LibTorch with CUDA: ${MIRROR_HAVE_CUDA_TORCH}; "
               "CUDA runtime: ${MIRROR_HAVE_CUDART}; NCCL: ${MIRROR_HAVE_NCCL} (${NCCL_LIBRARY})")

# Adds the GPU layers this configuration has to `target` (mirror_core).
function(mirror_add_gpu_sources target)
  set(src ${PROJECT_SOURCE_DIR}/core/src/strategy)
  if(MIRROR_HAVE_CUDART)
    target_compile_definitions(${target} PUBLIC MIRROR_HAVE_CUDART)
    if(MIRROR_HAVE_CUDA_TORCH)
      # The same shared runtime LibTorch loads; one copy of CUDA's runtime in the process.
      target_link_libraries(${target} PRIVATE CUDA::cudart)
    else()
      # Static: a CPU build that lists GPUs needs no CUDA library at run time (only the driver).
      target_link_libraries(${target} PRIVATE CUDA::cudart_static)
    endif()
  endif()
  if(MIRROR_HAVE_CUDA_TORCH)
    target_compile_definitions(${target} PUBLIC MIRROR_HAVE_CUDA_TORCH)
    # NVTX ranges named as the trace's phases (strategy/phase_names.h), for Nsight Systems: CUDA's
    # header-only NVTX 3 (it loads the profiler's library at run time, when one is attached).
    find_path(MIRROR_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    if(MIRROR_NVTX3_INCLUDE_DIR)
      target_compile_definitions(${target} PUBLIC MIRROR_HAVE_NVTX)
      target_include_directories(${target} PUBLIC ${MIRROR_NVTX3_INCLUDE_DIR})
      target_link_libraries(${target} PUBLIC ${CMAKE_DL_LIBS})
    endif()
    if(MIRROR_HAVE_CUDA_KERNELS)
      target_compile_definitions(${target} PUBLIC MIRROR_HAVE_CUDA_KERNELS MIRROR_HAVE_CUDA_GRAPHS)
      # The fused optimizer update as a kernel: alone, without LibTorch's flags or our warnings
      # (nvcc takes neither), and without contraction into fused multiply-adds, so that it rounds
      # as the CPU's loop does (core/src/optim/fused_update.h).
      add_library(mirror_cuda_kernels STATIC ${PROJECT_SOURCE_DIR}/core/src/optim/fused_update_cuda.cu)
      set_target_properties(mirror_cuda_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_STANDARD 17
                                                           CUDA_STANDARD_REQUIRED ON)
      target_compile_options(mirror_cuda_kernels PRIVATE --fmad=false)
      target_link_libraries(mirror_cuda_kernels PRIVATE CUDA::cudart)
      target_link_libraries(${target} PRIVATE mirror_cuda_kernels)
    endif()
  endif()
  if(MIRROR_HAVE_NCCL)
    if(MIRROR_HAVE_CUDA_TORCH)
      target_sources(${target} PRIVATE ${src}/nccl_communicator.cpp)
      target_include_directories(${target} PRIVATE ${NCCL_INCLUDE_DIR})
      target_link_libraries(${target} PRIVATE ${NCCL_LIBRARY})
      target_compile_definitions(${target} PUBLIC MIRROR_HAVE_NCCL)
    else()
      # Compiled, not linked: keeps the NCCL communicator building on CPU-only LibTorch machines.
      add_library(mirror_nccl_compile_check OBJECT ${src}/nccl_communicator.cpp)
      target_include_directories(mirror_nccl_compile_check PRIVATE ${PROJECT_SOURCE_DIR}/core/include ${NCCL_INCLUDE_DIR})
      target_link_libraries(mirror_nccl_compile_check PRIVATE ${TORCH_LIBRARIES} ${MIRROR_FMT} CUDA::cudart_static mirror_warnings)
      target_compile_options(mirror_nccl_compile_check PRIVATE ${TORCH_CXX_FLAGS})
    endif()
  endif()
endfunction()
