// Runs once, when the mongo container initialises its data directory
// (docker-entrypoint-initdb.d): the user OpenIM logs in as, from the
// environment compose passes in.
const name = process.env.MONGO_OPENIM_USERNAME;
const pwd = process.env.MONGO_OPENIM_PASSWORD;
const dbName = process.env.MONGO_INITDB_DATABASE || 'openim_v3';
const target = db.getSiblingDB(dbName);
if (!target.getUser(name)) {
  target.createUser({ user: name, pwd: pwd, roles: [{ role: 'readWrite', db: dbName }] });
}
