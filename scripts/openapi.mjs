#!/usr/bin/env node
// Writes the OpenAPI document (services/gateway/openapi.json, served by the gateway at
// GET /api/openapi.json) from the services' route registries, as built (`npm run build` first):
//   node scripts/openapi.mjs          write it
//   node scripts/openapi.mjs --check  exit 1 when the committed file differs
// test/unit/openapi.test.ts holds the committed file to the registries' sources.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { platformOpenApiDocument } = require(join(root, 'packages/common/dist/index.js'));
const registry = (svc, name) => require(join(root, `services/${svc}/dist/http/api-routes.js`))[name];
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

const doc = platformOpenApiDocument(
  [
    registry('gateway', 'gatewayApiRoutes'),
    registry('auth', 'authApiRoutes'),
    registry('data', 'dataApiRoutes'),
    registry('storage', 'storageApiRoutes'),
    registry('mail', 'mailApiRoutes'),
  ],
  version,
);
const text = `${JSON.stringify(doc, null, 2)}\n`;
const file = join(root, 'services/gateway/openapi.json');
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    /* missing: differs */
  }
  if (committed !== text) {
    console.error(`${file} is not what the registries generate: run npm run openapi`);
    process.exit(1);
  }
  console.log(`${file} is up to date`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
