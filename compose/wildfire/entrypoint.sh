#!/bin/bash
# Runs a Wildfire IM community server (im-server 1.2.4) from the user's own
# release package, with the settings of the seeds' method
# (runbooks/wildfire.md, ../shared/seeds/004_*). No official image is
# published, so compose/Dockerfile's `wildfire` stage is a pinned JRE with
# this script; the package is mounted read-only at /release.tar.gz and
# unpacked afresh on every start, then its config is set:
#
#   http.admin.secret_key      WILDFIRE_ADMIN_SECRET (required, never printed)
#   client.request_rate_limit  1000000 (the release's 100 per 5 s rejects a
#   http.admin.rate_limit      1000000  benchmark's sending with code 250)
#   message.max_queue          100000
#   netty.epoll                true
#   host                       0.0.0.0 (the container's; compose publishes on 127.0.0.1)
#   log4j2 root level          WARN (INFO writes ~10 lines per request)
#   -Xmx / -Xms                WILDFIRE_HEAP (default 2g; the seeds: 24G)
#
# The database is the package's default, the embedded H2, kept in the
# wildfire-data volume; the seeds ran MySQL (runbooks/wildfire.md).
# WILDFIRE_JMX_PORT adds the Prometheus JMX exporter agent on that port
# (compose/wildfire-jmx.yml); WILDFIRE_JAVA_OPTS adds JVM flags.
set -euo pipefail

# (Both paths are the container's; a test points them elsewhere.)
home=${IMBENCH_WILDFIRE_HOME:-/opt/im-server}
release=${IMBENCH_WILDFIRE_PACKAGE:-/release.tar.gz}

die() { echo "wildfire: $*" >&2; exit 2; }

[ -n "${WILDFIRE_ADMIN_SECRET:-}" ] || die "set WILDFIRE_ADMIN_SECRET (http.admin.secret_key); there is no default"
[ -s "$release" ] || die "no release package at $release: set WILDFIRE_RELEASE to the path of your distribution-1.2.4-bundle-tar.tar.gz"

# The package has bin/, config/ and lib/ at its top (no base folder); one
# folder above them is accepted too.
listing=$(tar -tzf "$release") || die "$release is not a .tar.gz"
if grep -Eq '^(\./)?config/wildfirechat\.conf$' <<<"$listing"; then
	strip=0
elif grep -Eq '^(\./)?[^/]+/config/wildfirechat\.conf$' <<<"$listing"; then
	strip=1
else
	die "$release has no config/wildfirechat.conf: is it Wildfire's distribution-*-bundle-tar.tar.gz?"
fi
mkdir -p "$home"
tar -xzf "$release" -C "$home" --strip-components="$strip" --no-same-owner
conf=$home/config/wildfirechat.conf

# set_conf KEY VALUE: the key's line, commented out or not, becomes
# "KEY VALUE" (once); a key the file lacks is appended. Values go through
# the environment, so no character of a secret is special.
set_conf() {
	KEY=$1 VALUE=$2 awk '
		BEGIN { k = ENVIRON["KEY"]; v = ENVIRON["VALUE"] }
		{ line = $0; sub(/^[#[:space:]]+/, "", line); split(line, w, /[[:space:]]+/) }
		w[1] == k { if (!done) print k " " v; done = 1; next }
		{ print }
		END { if (!done) print k " " v }' "$conf" >"$conf.new"
	mv "$conf.new" "$conf"
}
set_conf http.admin.secret_key "$WILDFIRE_ADMIN_SECRET"
set_conf client.request_rate_limit 1000000
set_conf http.admin.rate_limit 1000000
set_conf message.max_queue 100000
set_conf netty.epoll true
set_conf host 0.0.0.0

if [ -f "$home/config/log4j2.xml" ]; then
	sed -i -E 's/(<root[[:space:]]+level=")[A-Za-z]+(")/\1WARN\2/' "$home/config/log4j2.xml"
fi
if [ -f "$home/config/log4j.properties" ]; then
	sed -i -E 's/^(log4j\.rootLogger=[[:space:]]*)[A-Za-z]+/\1WARN/' "$home/config/log4j.properties"
fi

# The package's own start script knows its JVM flags; run it with ours
# added (it appends its own to JAVA_OPTS), with the JDK 9+ --add-opens line
# it carries commented out switched on, and with exec so that the JVM gets
# docker stop's SIGTERM (and flushes to its database) instead of the shell.
script=$home/bin/wildfirechat.sh
[ -f "$script" ] || die "the package has no bin/wildfirechat.sh"
sed -i -E 's/^#[[:space:]]*(JAVA_OPTS=.*--add-opens.*)$/\1/' "$script"
sed -i -E 's/^([[:space:]]*)\$JAVA -server /\1exec $JAVA -server /' "$script"
grep -Eq '^[[:space:]]*exec \$JAVA -server ' "$script" ||
	echo "wildfire: bin/wildfirechat.sh does not start java as expected; docker stop may not reach the JVM" >&2

heap=${WILDFIRE_HEAP:-2g}
JAVA_OPTS="-Xmx$heap -Xms$heap ${WILDFIRE_JAVA_OPTS:-}"
if [ -n "${WILDFIRE_JMX_PORT:-}" ]; then
	JAVA_OPTS="$JAVA_OPTS -javaagent:/opt/jmx/jmx_prometheus_javaagent.jar=$WILDFIRE_JMX_PORT:/opt/jmx/jmx.yml"
fi
export JAVA_OPTS
unset WILDFIRE_ADMIN_SECRET
echo "wildfire: starting with heap $heap${WILDFIRE_JMX_PORT:+, the JMX exporter agent on :$WILDFIRE_JMX_PORT}" >&2
exec "$script"
