// Runs Parse Server (installed by bench/install-peers.sh, outside the repository) in this process:
// express + ParseServer mounted on /parse, on PostgreSQL. Started by bench/lib/parse.mjs.
//
//   PARSE_DIR=<scratch folder with node_modules/parse-server> PORT=... DATABASE_URI=postgres://...
//   APP_ID=... MASTER_KEY=... LOGS_DIR=... node bench/peers/parse-server.mjs
import { createRequire } from 'node:module';
import path from 'node:path';

const { PARSE_DIR, PORT, DATABASE_URI, APP_ID, MASTER_KEY, LOGS_DIR } = process.env;
const require = createRequire(path.join(PARSE_DIR, 'package.json'));
const express = require('express');
const { ParseServer } = require('parse-server');
const FSFilesAdapter = require('@parse/fs-files-adapter');

const serverURL = `http://127.0.0.1:${PORT}/parse`;
const server = new ParseServer({
  databaseURI: DATABASE_URI,
  appId: APP_ID,
  masterKey: MASTER_KEY,
  masterKeyIps: ['127.0.0.1', '::1'],
  serverURL,
  logsFolder: LOGS_DIR,
  // files on the local disk (the default GridFS adapter needs MongoDB), under <cwd>/files
  filesAdapter: new FSFilesAdapter(),
  maxUploadSize: '20mb',
});
await server.start();
const app = express();
app.use('/parse', server.app);
const http = app.listen(Number(PORT), '127.0.0.1', () => {
  process.stdout.write(`parse-server listening on ${serverURL}\n`);
});
process.on('SIGTERM', () => {
  http.close();
  void server.handleShutdown().finally(() => process.exit(0));
});
