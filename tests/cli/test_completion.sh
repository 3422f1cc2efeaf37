#!/usr/bin/env bash
# mirrortrain's bash completion (packaging/mirrortrain.bash-completion) as bash runs it on a
# Debian desktop: with bash-completion loaded, against the built program.
# Usage: test_completion.sh path/to/mirrortrain [COMPLETION_FILE]
# (packaging/test-install.sh passes the installed program and file)
set -u
bin=$(readlink -f "${1:?usage: test_completion.sh path/to/mirrortrain [COMPLETION_FILE]}")
here=$(cd "$(dirname "$0")" && pwd)
completion=${2:-$here/../../packaging/mirrortrain.bash-completion}
if [[ ! -f /usr/share/bash-completion/bash_completion ]]; then
  echo "SKIPPED: bash-completion is not installed (apt-get install bash-completion)"
  exit 0
fi
source /usr/share/bash-completion/bash_completion
source "$completion"
PATH=$(dirname "$bin"):$PATH
failed=0
# complete WANTED WORD...: completes the last word of the command line and compares the candidates.
complete_line() {
  local want=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _mirrortrain
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
  if [[ $got == "$want " ]]; then
    echo "ok   ${COMP_WORDS[*]} -> $want"
  else
    failed=1
    echo "FAIL ${COMP_WORDS[*]}: wanted '$want', got '$got'"
  fi
}
complete_line "trace train" mirrortrain tr
complete_line "train" mirrortrain trai
complete_line "--trace --trace-steps --train-size" mirrortrain train --tra
complete_line "--output" mirrortrain trace run --o
complete_line "export" mirrortrain ex
complete_line "onnx" mirrortrain export run --format o
complete_line "keras" mirrortrain export run --format k
complete_line "evaluate export" mirrortrain e
complete_line "--fresh-weights" mirrortrain evaluate --fr
complete_line "summary sweep" mirrortrain s
complete_line "--precision --preset" mirrortrain train --pre
complete_line "mixed-bf16" mirrortrain train --precision m
complete_line "off on" mirrortrain train --overlap o
complete_line "--nesterov --no-record --nproc --num-words" mirrortrain train --n
complete_line "--scale-lr-with-batch --scaling --scaling-devices" mirrortrain sweep --scal
complete_line "spirals-mlp" mirrortrain train --preset spi
complete_line "seed-reuters seed-reuters-as-published" mirrortrain train --preset seed
complete_line "synthetic-text" mirrortrain train --dataset synthetic-t
complete_line "nadam" mirrortrain train --optimizer na
complete_line "reduce-to-one" mirrortrain train --communicator re
# Only the backends: `devices` also lists what the build has (c10d, nccl, CUDA ...) under "Built in".
complete_line "" mirrortrain train --communicator c
complete_line "off on" mirrortrain train --cuda-graphs o
complete_line "compare" mirrortrain runs co
complete_line "global-batch" mirrortrain lesson glo
complete_line "predict presets" mirrortrain pre
complete_line "100gbe 10gbe" mirrortrain predict run --link 10
complete_line "ib-ndr400" mirrortrain train --link ib
complete_line "hierarchical" mirrortrain predict run --algorithm h
complete_line "strong" mirrortrain predict run --scaling st
complete_line "--links" mirrortrain predict --links
exit $failed
