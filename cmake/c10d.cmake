# Training across processes over PyTorch's c10d (TCPStore + ProcessGroupGloo).
# MIRROR_C10D=AUTO uses it when the LibTorch found has the c10d headers and Gloo's headers are
# installed (Debian: libgloo-dev; a pip or CUDA LibTorch ships both); OFF leaves it out, ON insists.
set(MIRROR_C10D AUTO CACHE STRING "Train across processes over c10d/Gloo: AUTO, ON or OFF")
set_property(CACHE MIRROR_C10D PROPERTY STRINGS AUTO ON OFF)
set(MIRROR_C10D_FOUND OFF)
if(NOT MIRROR_C10D STREQUAL "OFF")
  find_path(MIRROR_C10D_INCLUDE_DIR torch/csrc/distributed/c10d/ProcessGroupGloo.hpp HINTS ${TORCH_INCLUDE_DIRS})
  find_path(MIRROR_GLOO_INCLUDE_DIR gloo/config.h HINTS ${TORCH_INCLUDE_DIRS})
  if(MIRROR_C10D_INCLUDE_DIR AND MIRROR_GLOO_INCLUDE_DIR)
    set(MIRROR_C10D_FOUND ON)
    message(STATUS "c10d with Gloo: yes (training across processes)")
  elseif(MIRROR_C10D STREQUAL "ON")
    message(FATAL_ERROR "MIRROR_C10D=ON but c10d's ProcessGroupGloo.hpp or Gloo's headers were not found "
                        "(Debian: apt-get install libgloo-dev)")
  else()
    message(STATUS "c10d with Gloo: no (install libgloo-dev to train across processes)")
  endif()
endif()
