#!/bin/sh
# Creates, idempotently, one role and one database per data-owning service, so that each service
# reaches only its own database (least privilege):
#
#   role baas_<svc>      LOGIN, no superuser/createdb/createrole/replication/bypassrls, password from
#                        the variable <SVC>_DB_PASSWORD (URL-safe characters: it goes into DATABASE_URL)
#   database baas_<svc>  owned by that role, UTF8 with the C.UTF-8 (else C) collation: strings sort
#                        by code point, as in MongoDB
#   REVOKE ALL ON DATABASE baas_<svc> FROM PUBLIC   no other (non-superuser) role may connect
#
#   sh deploy/postgres/init-service-databases.sh auth data storage mail
#
# Connects with the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) as a role
# that may create roles and databases; passwords travel in the environment and on psql's standard
# input, never on a command line. Run again, it changes nothing but the passwords (set to the
# given ones). Used by scripts/stack.mjs (native), the postgres-init service of docker-compose.yml
# and the dev overlay of deploy/k8s (a copy there, kept equal by test/unit/deployment-manifest.test.ts).
set -eu

[ "$#" -gt 0 ] || {
  echo "usage: $0 <service>... (e.g. auth data storage mail)" >&2
  exit 2
}

psql_admin() {
  psql -X -q -v ON_ERROR_STOP=1 "$@"
}

for svc in "$@"; do
  case "$svc" in
    *[!a-z0-9_]* | '')
      echo "init-service-databases: bad service name '$svc' (a-z, 0-9, _)" >&2
      exit 2
      ;;
  esac
  name="baas_$svc"
  var="$(printf '%s' "$svc" | tr 'a-z' 'A-Z')_DB_PASSWORD"
  password="$(eval "printf '%s' \"\${$var:-}\"")"
  if [ -z "$password" ]; then
    echo "init-service-databases: $var is empty; set it (npm run up generates it into .stack/secrets.env)" >&2
    exit 2
  fi
  # single quotes doubled: a password is a SQL string literal
  quoted="$(printf '%s' "$password" | sed "s/'/''/g")"

  psql_admin <<SQL
SELECT format('CREATE ROLE %I LOGIN', '$name')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$name') \gexec
ALTER ROLE "$name" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD '$quoted';
SQL

  exists="$(psql_admin -At -c "SELECT 1 FROM pg_database WHERE datname = '$name'")"
  if [ "$exists" != 1 ]; then
    # C.UTF-8 where the server's C library has it (glibc >= 2.35, the postgres images), else C
    psql_admin -c "CREATE DATABASE \"$name\" OWNER \"$name\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'" 2>/dev/null ||
      psql_admin -c "CREATE DATABASE \"$name\" OWNER \"$name\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
  fi
  psql_admin <<SQL
ALTER DATABASE "$name" OWNER TO "$name";
REVOKE ALL ON DATABASE "$name" FROM PUBLIC;
GRANT ALL ON DATABASE "$name" TO "$name";
SQL
  echo "init-service-databases: role and database $name ready"
done
