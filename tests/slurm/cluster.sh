#!/bin/bash
# cluster.sh — a throwaway single-node Slurm cluster for the tests
# (tests/test_slurm_cluster.c): munged, slurmctld and slurmd from Debian's
# packages, on loopback, with every file (config, key, state, logs, pids,
# sockets) under DIR, so nothing on the machine is touched.
#
#   cluster.sh start DIR   exit 0: up, `export SLURM_CONF=DIR/slurm.conf`
#                          exit 77: cannot start here, with one line why
#   cluster.sh stop DIR    stop the daemons this DIR's pid files name
#
# No cgroups (proctrack/linuxproc, task/none), no accounting: CI runs in
# containers where cgroups are not ours to use.
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }

skip() { echo "Slurm cluster test skipped: $*"; stop_all; exit 77; }

# Stop only what this DIR started (pid files), never by name.
stop_all() {
    for p in slurmd slurmctld munged; do
        f="$dir/$p.pid"
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
}

if [ "$cmd" = stop ]; then stop_all; exit 0; fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command $cmd" >&2; exit 2; }

for b in munged mungekey slurmctld slurmd sbatch squeue scancel; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
        skip "$b not installed (as root: make deps-slurm)"
done
export PATH="$PATH:/usr/sbin"
[ "$(id -u)" = 0 ] || skip "needs root to run slurmd"

mkdir -p "$dir/state" "$dir/spool" "$dir/munge" || skip "cannot create $dir"
chmod 700 "$dir" "$dir/munge"
# munged refuses keys and sockets in group- or world-writable directories
# (TMPDIR is usually /tmp, sticky and world-writable: allowed with --force).
mungekey -c -k "$dir/munge/munge.key" >/dev/null 2>&1 || skip "mungekey failed"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
       --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
       --seed-file="$dir/munge/munge.seed" >/dev/null 2>&1 ||
    skip "munged did not start ($(tail -n 1 "$dir/munged.log" 2>/dev/null))"

# Free ports: the test may run beside another cluster.
port=$(( 20000 + (RANDOM % 20000) ))
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=spsweeptest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 ||
    skip "slurmctld did not start ($(tail -n 1 "$dir/slurmctld.log" 2>/dev/null))"
slurmd -f "$SLURM_CONF" -N localhost >/dev/null 2>&1 ||
    skip "slurmd did not start ($(tail -n 1 "$dir/slurmd.log" 2>/dev/null))"

# Up when the node is idle; 30 s at most.
up=
for _ in $(seq 60); do
    state=$(sinfo -h -n localhost -o %t 2>/dev/null)
    case "$state" in idle*|mix*|alloc*) up=1; break ;; esac
    sleep 0.5
done
[ -n "$up" ] ||
    skip "the node did not come up in 30 s (state '${state:-none}'; $(tail -n 1 "$dir/slurmd.log" 2>/dev/null))"

# A node that is up may still be unable to start jobs (no fork of
# slurmstepd in some containers): one trivial job must run, 30 s at most.
job=$(sbatch --parsable --output="$dir/probe.out" --wrap="echo probe-ran" 2>&1) ||
    skip "sbatch of a probe job failed ($job)"
for _ in $(seq 60); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.5
done
grep -q probe-ran "$dir/probe.out" 2>/dev/null ||
    skip "a probe job did not run in 30 s ($(tail -n 1 "$dir/slurmd.log" 2>/dev/null))"
exit 0
