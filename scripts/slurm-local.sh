#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (for tests/cli/test_workers.sh's srun check):
# munged as user munge, then slurmctld and slurmd with a generated slurm.conf naming this host.
# Needs root (or sudo) and Debian's slurm-wlm and munge. Idempotent: a cluster that already
# answers `srun -n 1 true` is left alone. Prints one line saying what it did.
set -euo pipefail
if command -v srun >/dev/null && timeout 5 srun -n 1 true 2>/dev/null; then
  echo "slurm-local.sh: a Slurm cluster already answers"; exit 0
fi
for tool in slurmctld slurmd munged; do
  command -v "$tool" >/dev/null || { echo "slurm-local.sh: $tool is missing (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "slurm-local.sh: needs root or sudo to start the daemons" >&2; exit 1; }
  as_root=(sudo -n)
fi
if [[ -e /etc/slurm/slurm.conf ]] && ! grep -q '^ClusterName=mirror-local$' /etc/slurm/slurm.conf; then
  echo "slurm-local.sh: /etc/slurm/slurm.conf belongs to another cluster; leaving it alone" >&2; exit 1
fi
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
conf=$(mktemp)
cat >"$conf" <<CONF
ClusterName=mirror-local
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmUser=root
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldLogFile=/var/log/slurm/slurmctld.log
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
"${as_root[@]}" mkdir -p /etc/slurm /var/spool/slurmd /var/spool/slurmctld /var/log/slurm /run/munge
"${as_root[@]}" install -m 644 "$conf" /etc/slurm/slurm.conf
rm -f "$conf"
if [[ ! -s /etc/munge/munge.key ]]; then
  "${as_root[@]}" sh -c 'dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null'
fi
"${as_root[@]}" chown munge:munge /etc/munge/munge.key /run/munge
"${as_root[@]}" chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || "${as_root[@]}" runuser -u munge -- munged
pgrep -x slurmctld >/dev/null || "${as_root[@]}" slurmctld
pgrep -x slurmd >/dev/null || "${as_root[@]}" slurmd
for _ in $(seq 30); do
  if timeout 5 srun -n 1 true 2>/dev/null; then echo "slurm-local.sh: one-node cluster on $host ($cpus CPUs) is up"; exit 0; fi
  sleep 1
done
echo "slurm-local.sh: Slurm did not come up; see /var/log/slurm/" >&2
exit 1
