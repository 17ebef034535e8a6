# Starts a throwaway PostgreSQL cluster for the test suite (and the benchmarks): its own data
# directory, loopback only, a free port; removed again when the calling script exits.
#
# Source this file, then call start_throwaway_postgres. It exports NIMBUS_TEST_DATABASE, the
# cluster's URL. PostgreSQL comes from Debian's packages; as root the script installs them if
# missing, otherwise it says how. The server runs as an unprivileged user (initdb refuses root).

postgres_bin_dir() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return
    fi
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

start_throwaway_postgres() {
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
    local run_as=()
    local owner
    owner="$(id -un)"
    if [ "$(id -u)" = 0 ]; then
        owner="postgres"
        id postgres >/dev/null 2>&1 || owner="nobody"
        run_as=(runuser -u "$owner" --)
    fi

    PG_THROWAWAY_DIR="$(mktemp -d /tmp/nimbus-pg.XXXXXX)"
    chown "$owner" "$PG_THROWAWAY_DIR"
    local port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

    "${run_as[@]}" "$bin/initdb" -D "$PG_THROWAWAY_DIR/data" -U nimbus --auth=trust -E UTF8 --no-sync >"$PG_THROWAWAY_DIR/initdb.log" 2>&1 || {
        cat "$PG_THROWAWAY_DIR/initdb.log" >&2
        return 1
    }
    # Durability settings are off: this cluster lives for one test run. Benchmarks start their
    # own cluster with the defaults.
    "${run_as[@]}" "$bin/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -l "$PG_THROWAWAY_DIR/server.log" -w -o \
        "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$PG_THROWAWAY_DIR -c max_connections=400 ${PG_THROWAWAY_SETTINGS:--c fsync=off -c synchronous_commit=off -c full_page_writes=off}" \
        start >/dev/null || {
        cat "$PG_THROWAWAY_DIR/server.log" >&2
        return 1
    }
    PG_THROWAWAY_BIN="$bin"
    PG_THROWAWAY_RUN_AS="${run_as[*]}"
    trap stop_throwaway_postgres EXIT
    export NIMBUS_TEST_DATABASE="postgres://nimbus@127.0.0.1:$port/postgres?sslmode=disable&pool_size=4"
}

stop_throwaway_postgres() {
    if [ -n "${PG_THROWAWAY_DIR:-}" ] && [ -d "$PG_THROWAWAY_DIR" ]; then
        # shellcheck disable=SC2086
        $PG_THROWAWAY_RUN_AS "$PG_THROWAWAY_BIN/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$PG_THROWAWAY_DIR"
    fi
}
