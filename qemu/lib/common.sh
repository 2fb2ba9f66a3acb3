# Shared helpers of the qemu/ scripts.  Source it; do not run it.

FROGGY_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() {
	echo "froggy: $*" >&2
	exit 1
}

# Print a progress line with the time it was reached.
step() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

# Resolve the build folder once the caller has parsed its options.
rig_init() {
	FROGGY_BUILD=${FROGGY_BUILD:-$FROGGY_TOP/build}
	mkdir -p "$FROGGY_BUILD"
	FROGGY_BUILD=$(cd "$FROGGY_BUILD" && pwd)
	export FROGGY_TOP FROGGY_BUILD
}

# Install the Debian packages in "$@" that are missing.  Runs apt-get update
# at most once per rig invocation, and only when something is missing.
need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (run as root to install): ${missing[*]}"
	step "installing ${missing[*]}"
	local log
	log=$(mktemp)
	if [ -z "${FROGGY_APT_UPDATED:-}" ]; then
		apt-get update -q >"$log" 2>&1 || { cat "$log"; die "apt-get update failed"; }
		export FROGGY_APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >"$log" 2>&1 ||
		{ tail -n 30 "$log"; die "apt-get install ${missing[*]} failed"; }
	rm -f "$log"
}

# Hold an exclusive lock on $1 until the calling script exits.  Waits for
# another run to finish rather than building over it.
take_lock() {
	exec {FROGGY_LOCK_FD}>"$1"
	if ! flock -n "$FROGGY_LOCK_FD"; then
		step "waiting for another run holding $1"
		flock "$FROGGY_LOCK_FD"
	fi
}

# Run "$@" with its output in log file $1 (after the shift), printing a
# progress line every 200 output lines; on failure, show the log's tail.
# Needs pipefail, which every rig script sets.
run_logged() {
	local log=$1
	shift
	if ! "$@" 2>&1 | tee "$log" |
		awk '{ if (++n % 200 == 0) { printf "  ... %d steps, at %s\n", n, $NF; fflush() } }'; then
		tail -n 40 "$log" >&2
		return 1
	fi
}
