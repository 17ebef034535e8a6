# Starts throwaway PostgreSQL clusters for the test suite (and the benchmarks): each with its own
# data directory, loopback only, a free port; all removed again when the calling script exits.
#
# Source this file, then call `start_throwaway_postgres NAME`: it exports NAME, the cluster's
# URL, and NAME_CONTROL, a script that runs pg_ctl on the cluster (`$NAME_CONTROL stop -m
# immediate`, `$NAME_CONTROL start`), for tests that take the database away. PostgreSQL comes
# from Debian's packages; as root this installs them if missing, otherwise it says how. The
# server runs as an unprivileged user (initdb refuses root).
#
# PG_THROWAWAY_SETTINGS overrides the durability settings (off by default: a test cluster lives
# for one run; the benchmarks keep PostgreSQL's defaults).

PG_THROWAWAY_DIRS=()

postgres_bin_dir() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return
    fi
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

start_throwaway_postgres() {
    local name="$1"
    local bin
    bin="$(postgres_bin_dir)"
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || ! command -v psql >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-client >/dev/null
            bin="$(postgres_bin_dir)"
        else
            echo "scripts/test: PostgreSQL is needed for the PostgreSQL half of the suite; install it with: sudo apt-get install postgresql postgresql-client" >&2
            return 1
        fi
    fi

    # As root, run the server as the postgres user the package made (or nobody).
    local run_as=""
    local owner
    owner="$(id -un)"
    if [ "$(id -u)" = 0 ]; then
        owner="postgres"
        id postgres >/dev/null 2>&1 || owner="nobody"
        run_as="runuser -u $owner --"
    fi

    local dir
    dir="$(mktemp -d /tmp/nimbus-pg.XXXXXX)"
    chown "$owner" "$dir"
    PG_THROWAWAY_DIRS+=("$dir")
    trap stop_throwaway_postgres EXIT
    local port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

    $run_as "$bin/initdb" -D "$dir/data" -U nimbus --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        return 1
    }
    local settings="${PG_THROWAWAY_SETTINGS--c fsync=off -c synchronous_commit=off -c full_page_writes=off}"
    # The suite runs many server instances at once, each with a connection pool and one
    # connection held for LISTEN: a thousand connections were seen open together, and a cluster
    # that refuses the next one fails tests that have nothing to do with it.
    cat >"$dir/control" <<CONTROL
#!/usr/bin/env bash
exec $run_as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=2500 $settings" "\$@"
CONTROL
    chmod 755 "$dir/control"
    "$dir/control" start >/dev/null || {
        cat "$dir/server.log" >&2
        return 1
    }
    export "$name=postgres://nimbus@127.0.0.1:$port/postgres?sslmode=disable&pool_size=4&wait_timeout=30000"
    export "${name}_CONTROL=$dir/control"
}

stop_throwaway_postgres() {
    local dir
    for dir in "${PG_THROWAWAY_DIRS[@]}"; do
        if [ -d "$dir" ]; then
            "$dir/control" -m immediate stop >/dev/null 2>&1 || true
            rm -rf "$dir"
        fi
    done
}
