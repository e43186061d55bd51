# Sourced by scripts/gpu-check.sh and scripts/nccl-build-check.sh: makes NCCL and the CUDA runtime
# headers and libraries available from PyPI's wheels (nvidia-nccl-cu12, nvidia-cuda-runtime-cu12,
# plus nvidia-cuda-nvcc-cu12 and nvidia-cuda-cccl-cu12 for the crt/ and nv/ headers nccl.h pulls
# in), installed with `pip install --target` into $1. Sets KOLO_NCCL_HOME when they are there.
# Returns non-zero when they are not there and could not be installed.
nccl_wheels() {
  local dir=$1
  local have="[[ -f $dir/nvidia/nccl/include/nccl.h && -f $dir/nvidia/cuda_runtime/include/cuda_runtime.h &&
     -f $dir/nvidia/cuda_nvcc/include/crt/host_config.h && -f $dir/nvidia/cuda_cccl/include/nv/target ]]"
  if ! eval "$have"; then
    python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$dir" nvidia-nccl-cu12 \
      nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12 || return 1
  fi
  eval "$have" || return 1
  export KOLO_NCCL_HOME=$dir
}
