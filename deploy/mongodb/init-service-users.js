// Creates, idempotently, one MongoDB user per data-owning service, limited to its own databases
// (issue 12, item 13). Run with mongosh at every `up` by the mongo-init job of
// docker-compose.mongodb.yml:
//
//   mongosh --nodb --quiet --file deploy/mongodb/init-service-users.js
//
// Environment (passwords never on a command line):
//   MONGO_ROOT_PASSWORD      password of the server's root user `root` (MONGO_INITDB_ROOT_*)
//   MONGO_SHARED_HOST        server of auth, storage and mail (e.g. mongo:27017)
//   MONGO_DATA_HOST          the data service's own server (e.g. mongo-data:27017)
//   <SVC>_DB_PASSWORD        each service's password (URL-safe: it goes into DATABASE_URL)
//
// auth, storage, mail: user baas_<svc> in database baas_<svc>, role readWrite on baas_<svc> only.
// data: keeps one database per project (baas_data_p_<projectId>), and MongoDB roles cannot name a
// database prefix, so data gets a server of its own, where its user baas_data may read, write and
// drop any database (readWriteAnyDatabase + dbAdminAnyDatabase): that server holds nothing else,
// and the user cannot reach auth's users, sessions or keys. Run again, it changes nothing but the
// passwords and roles (set to these).

function env(name) {
  const v = process.env[name];
  if (!v)
    throw new Error(`init-service-users: ${name} is empty (npm run up generates it into .stack/secrets.env)`);
  return v;
}

function adminOn(host) {
  const conn = new Mongo(`mongodb://${host}/?authSource=admin`);
  const admin = conn.getDB('admin');
  admin.auth('root', env('MONGO_ROOT_PASSWORD'));
  return conn;
}

function ensureUser(db, user, pwd, roles) {
  if (db.getUser(user)) db.updateUser(user, { pwd, roles });
  else db.createUser({ user, pwd, roles });
  print(`init-service-users: ${db.getName()}.${user} -> ${JSON.stringify(roles)}`);
}

const shared = adminOn(env('MONGO_SHARED_HOST'));
for (const svc of ['auth', 'storage', 'mail']) {
  const name = `baas_${svc}`;
  ensureUser(shared.getDB(name), name, env(`${svc.toUpperCase()}_DB_PASSWORD`), [
    { role: 'readWrite', db: name },
  ]);
}

const data = adminOn(env('MONGO_DATA_HOST'));
ensureUser(data.getDB('baas_data'), 'baas_data', env('DATA_DB_PASSWORD'), [
  { role: 'readWriteAnyDatabase', db: 'admin' },
  { role: 'dbAdminAnyDatabase', db: 'admin' },
]);
